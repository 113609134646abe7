// The runs sidebar's width rule: clamped to a usable range (lib/view.ts remembers it).

export const SIDEBAR_DEFAULT = 250;
export const SIDEBAR_MIN = 160;
export const SIDEBAR_MAX = 640;

/** Pure: a width the layout can use: within the bounds and never more than half the window. */
export function clampSidebarWidth(px: number, windowWidth: number): number {
  if (!Number.isFinite(px)) return SIDEBAR_DEFAULT;
  const max = Math.max(SIDEBAR_MIN, Math.min(SIDEBAR_MAX, Math.floor(windowWidth / 2)));
  return Math.round(Math.min(max, Math.max(SIDEBAR_MIN, px)));
}
