// How the dashboard was last viewed (pinned charts, collapsed groups, sidebar width) in localStorage; the metric x axis per session.

import { SIDEBAR_DEFAULT } from './sidebar-width';

export interface ViewState {
  pinned: string[];
  collapsed: string[];
}

const KEY = 'rlwatch.view';
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

export function loadView(): ViewState {
  try {
    const raw = JSON.parse(localStorage.getItem(KEY) ?? '{}') as Record<string, unknown>;
    return {
      pinned: strings(raw.pinned),
      collapsed: strings(raw.collapsed),
    };
  } catch {
    return { pinned: [], collapsed: [] };
  }
}

export function saveView(v: ViewState): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(v));
  } catch {
    // Storage disabled: the view is simply not remembered.
  }
}

const WIDTH_KEY = 'rlwatch.sidebarWidth';

export function loadSidebarWidth(): number {
  try {
    const v = Number(localStorage.getItem(WIDTH_KEY));
    return v > 0 ? v : SIDEBAR_DEFAULT;
  } catch {
    return SIDEBAR_DEFAULT;
  }
}

export function saveSidebarWidth(px: number): void {
  try {
    localStorage.setItem(WIDTH_KEY, String(px));
  } catch {
    // Storage disabled: the width is simply not remembered.
  }
}

const METRIC_X_KEY = 'rlwatch.metricX';

/**
 * The tag chosen as every chart's x axis, or null (the Step / Relative / Wall setting rules). Kept for this browser
 * tab's session only: the other x modes are app settings, while a tag means something only to the runs open now.
 */
export function loadMetricX(): string | null {
  try {
    const v = sessionStorage.getItem(METRIC_X_KEY);
    return v === null || v === '' ? null : v;
  } catch {
    return null;
  }
}

export function saveMetricX(tag: string | null): void {
  try {
    if (tag === null) sessionStorage.removeItem(METRIC_X_KEY);
    else sessionStorage.setItem(METRIC_X_KEY, tag);
  } catch {
    // Storage disabled: the choice lasts until the page reloads.
  }
}
