// The sweep overlay: a sweep (runs logging alike tags) found among the folder's runs, overlaid on the charts while its toggle is on.

import { untrack } from 'svelte';
import { findSweep, sweepToShow } from '../../../shared/compare/sweep';
import type { AppState } from './app-state.svelte';
import type { FolderPrefs } from './folder-prefs.svelte';

export class SweepOverlay {
  /** The last judgement, keyed by each run's name and tag count. */
  private memo: { key: string; runs: string[] } = { key: '', runs: [] };
  /** The sweep as last overlaid, and for which folder (sweepToShow says when a grown sweep is overlaid again). */
  private shown: { root: string | null; runs: string[] } = { root: null, runs: [] };

  /** The sweep's runs ([] for none), judged again only when a run's tag count or the run names change. */
  runs = $derived.by(() => {
    const key = this.app.runs.map((r) => `${r.run}\u0001${r.tags.length}`).join('\u0000');
    if (key !== this.memo.key) {
      const runs = findSweep(this.app.runs);
      // The same members (a run's tags grew): the same array, so the overlay is not applied again.
      this.memo = {
        key,
        runs: runs.join('\u0000') === this.memo.runs.join('\u0000') ? this.memo.runs : runs,
      };
    }
    return this.memo.runs;
  });

  /** Made while a component initialises: the overlay follows the sweep, the folder and the toggle from then on. */
  constructor(
    private readonly app: AppState,
    private readonly prefs: FolderPrefs,
  ) {
    $effect(() => {
      const members = this.runs;
      const root = prefs.root;
      const on = prefs.sweepOverlay;
      untrack(() => {
        if (this.shown.root !== root || !on) this.shown = { root, runs: [] };
        // Not before the folder is known: its stored choice (maybe off) is not loaded yet.
        if (!on || root === null || members.length < 2) return;
        const show = sweepToShow(this.shown.runs, members, app.selected);
        if (show !== null) app.showRuns(show);
        this.shown = { root, runs: members };
      });
    });
  }

  /** The toggle: off goes back to the selected run alone (on: the overlay follows the sweep again). */
  setOn(on: boolean): void {
    this.prefs.setSweepOverlay(on);
    if (!on) this.app.showRuns(this.app.selected === null ? [] : [this.app.selected]);
  }
}
