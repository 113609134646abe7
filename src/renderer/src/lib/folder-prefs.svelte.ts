// The open folder's own view choices (composed charts, sweep overlay) as live state, kept per folder in this
// browser's localStorage (never written into the folder).

import {
  EMPTY_FOLDER_VIEW,
  folderKey,
  parseFolderView,
  upsertComposed,
  type ComposedChart,
  type FolderView,
} from './folder-view';

/** The folder's view, or the defaults (storage disabled, nothing stored, or not parseable). */
function loadFolderView(root: string): FolderView {
  try {
    return parseFolderView(localStorage.getItem(folderKey(root)));
  } catch {
    return { ...EMPTY_FOLDER_VIEW, composed: [] };
  }
}

function saveFolderView(root: string, v: FolderView): void {
  try {
    localStorage.setItem(folderKey(root), JSON.stringify(v));
  } catch {
    // Storage disabled or full: the view lasts until the page reloads.
  }
}

export class FolderPrefs {
  /** The folder these belong to (the backend's root), or null before it is known: nothing is saved then. */
  root = $state<string | null>(null);
  composed = $state.raw<ComposedChart[]>([]);
  sweepOverlay = $state(EMPTY_FOLDER_VIEW.sweepOverlay);

  /** Switches to `root`'s stored choices (the same root again changes nothing). */
  open(root: string | null): void {
    if (root === this.root) return;
    this.root = root;
    const v = root === null ? { ...EMPTY_FOLDER_VIEW, composed: [] } : loadFolderView(root);
    this.composed = v.composed;
    this.sweepOverlay = v.sweepOverlay;
  }

  /** Adds `chart`, or replaces the one named `replacing` (an edit). */
  saveComposed(chart: ComposedChart, replacing: string | null): void {
    this.composed = upsertComposed(this.composed, chart, replacing);
    this.save();
  }

  removeComposed(name: string): void {
    this.composed = this.composed.filter((c) => c.name !== name);
    this.save();
  }

  setSweepOverlay(on: boolean): void {
    this.sweepOverlay = on;
    this.save();
  }

  private save(): void {
    if (this.root !== null)
      saveFolderView(this.root, { composed: this.composed, sweepOverlay: this.sweepOverlay });
  }
}
