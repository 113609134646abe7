// Incident snapshots from the alerts panel: asks the core for one (export.incident), remembers the folder, says where it went.

import type { Backend } from '../backend/backend';

/** What the alerts panel says about the last snapshot. */
export interface SnapshotLine {
  id: string;
  state: 'writing' | 'written' | 'failed';
  text: string;
  /** The report's path, once written. */
  report: string | null;
}

const FOLDER_KEY = 'rlwatch.exportFolder';

function loadFolder(): string {
  try {
    return localStorage.getItem(FOLDER_KEY) ?? '';
  } catch {
    return '';
  }
}

export class Snapshots {
  line = $state.raw<SnapshotLine | null>(null);
  /** The folder the last snapshot went to (serve mode prefills its dialog with it). */
  folder = $state(loadFolder());

  constructor(private readonly backend: Backend) {}

  /** Writes the snapshot of the alert's incident raised at `step` into `folder`, or (desktop) the remembered or
   * picked export folder. */
  async write(alert: { id: string; step: number }, folder?: string): Promise<void> {
    const { id, step } = alert;
    this.line = { id, state: 'writing', text: 'Writing the snapshot…', report: null };
    const r = await this.backend.invoke(
      'export.incident',
      folder === undefined ? { id, step } : { id, step, folder },
    );
    if (!r.ok) {
      this.line = { id, state: 'failed', text: `Snapshot failed: ${r.error.message}`, report: null };
      return;
    }
    const snap = r.value;
    if (folder !== undefined) this.remember(folder);
    const failed = snap.failed.length
      ? `; ${snap.failed.length} file(s) failed: ${snap.failed.map((f) => f.message).join('; ')}`
      : '';
    const wroteReport = snap.written.some((f) => f.path === snap.report);
    this.line = wroteReport
      ? { id, state: 'written', text: `Snapshot written to ${snap.report}${failed}`, report: snap.report }
      : { id, state: 'failed', text: `Snapshot failed${failed}`, report: null };
  }

  private remember(folder: string): void {
    this.folder = folder;
    try {
      localStorage.setItem(FOLDER_KEY, folder);
    } catch {
      // Storage disabled: the dialog starts empty next time.
    }
  }
}
