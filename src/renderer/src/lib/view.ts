// How the dashboard was last viewed (pinned charts, collapsed groups, sidebar width), kept in localStorage.

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
