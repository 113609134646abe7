// Which namespace sections of the chart grid the user opened or closed, kept in localStorage across remounts.

import { SvelteSet } from 'svelte/reactivity';

const KEY = 'rlwatch.sections';

function load(): { collapsed: string[]; expanded: string[] } {
  try {
    const raw = JSON.parse(localStorage.getItem(KEY) ?? '{}') as Record<string, unknown>;
    const strings = (v: unknown): string[] =>
      Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    return { collapsed: strings(raw.collapsed), expanded: strings(raw.expanded) };
  } catch {
    return { collapsed: [], expanded: [] };
  }
}

/** The user's explicit choices; a section without one follows `sectionOpen`'s default. */
export class SectionChoices {
  readonly collapsed: SvelteSet<string>;
  readonly expanded: SvelteSet<string>;

  constructor() {
    const saved = load();
    this.collapsed = new SvelteSet(saved.collapsed);
    this.expanded = new SvelteSet(saved.expanded);
  }

  /** Records the user's open/close of a section shown `wasOpen`. */
  toggle(key: string, wasOpen: boolean): void {
    this.set(key, !wasOpen);
  }

  set(key: string, open: boolean): void {
    if (open) {
      this.collapsed.delete(key);
      this.expanded.add(key);
    } else {
      this.expanded.delete(key);
      this.collapsed.add(key);
    }
    try {
      localStorage.setItem(
        KEY,
        JSON.stringify({ collapsed: [...this.collapsed], expanded: [...this.expanded] }),
      );
    } catch {
      // Storage disabled: the choice lasts until reload.
    }
  }
}

/** One for the app: the grid is remounted on theme changes, the choices stay. */
export const sectionChoices = new SectionChoices();
