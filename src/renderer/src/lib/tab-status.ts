// Puts a TabBadge on the page: document.title and the <link rel=icon>, the app's own icon back when all is well.

import type { TabBadge } from './tab-badge';

/** The page's own icon (index.html), read the first time the icon is replaced. */
let appIconHref: string | null = null;

export function applyTabBadge(badge: TabBadge): void {
  if (document.title !== badge.title) document.title = badge.title;
  const link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
  if (!link) return;
  if (appIconHref === null) appIconHref = link.getAttribute('href') ?? '';
  const href = badge.icon ?? appIconHref;
  if (link.getAttribute('href') === href) return;
  link.setAttribute('href', href);
  // An SVG icon is not the PNG the page declared.
  link.type = badge.icon ? 'image/svg+xml' : 'image/png';
}
