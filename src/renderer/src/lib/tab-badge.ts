// The browser tab's title and favicon for the worst active alert, so a background tab still tells (pure).

import { worseSeverity, type AlertInfo, type Severity } from '../../../shared/domain';

/** The tray icon's colours (scripts/make-icons.js), so tab and tray say the same. */
const SEVERITY_COLOURS: Record<Severity, string> = { warning: '#d97706', critical: '#dc2626' };
/** The tray menu's marks for an alert of each severity. */
const SEVERITY_MARKS: Record<Severity, string> = { warning: '⚠', critical: '⛔' };

export interface TabBadge {
  /** The page title: `⚠ 2 · rlwatch`, or the plain title when no alert is active. */
  title: string;
  /** A dot in the worst severity's colour as an SVG data URL (CSP: img-src data:); null for the app's own icon. */
  icon: string | null;
}

/** A filled circle in `colour`, as a data: URL a <link rel=icon> takes. */
export function dotIcon(colour: string): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="14" fill="${colour}"/></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/** Title and icon for the active alerts among `alerts` (every run, the machine's too: as the tray counts them). */
export function tabBadge(alerts: readonly AlertInfo[], plainTitle: string): TabBadge {
  let worst: Severity | null = null;
  let count = 0;
  for (const a of alerts) {
    if (!a.active) continue;
    count++;
    worst = worseSeverity(worst, a.severity);
  }
  if (worst === null) return { title: plainTitle, icon: null };
  return {
    title: `${SEVERITY_MARKS[worst]} ${count} · ${plainTitle}`,
    icon: dotIcon(SEVERITY_COLOURS[worst]),
  };
}
