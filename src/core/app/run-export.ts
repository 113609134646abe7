// export.run: the chosen runs' data written into a folder the user picked (never the open folder), progress pushed.

import { isAbsolute } from 'node:path';
import { escapeRegExp } from '../../shared/user-regex';
import type { ExportProgress, RunExportResult, RunExportStarted } from '../../shared/domain';
import { ApiError } from '../../shared/result';
import {
  exportData,
  ExportUsageError,
  outsideReadFolder,
  type DataExportOptions,
} from '../export/export-run';

export interface RunExportRequest {
  /** The open folder (null: none is open). */
  root: string | null;
  /** The runs the open folder holds. */
  known: readonly string[];
  runs: readonly string[];
  folder: string;
  /** Each file, then the end (finished or failed), tagged with the export's id. */
  onProgress: (p: ExportProgress) => void;
  /** What the figures draw as the window does: the user's threshold settings and the alerts to mark. */
  figures?: Pick<DataExportOptions, 'userThresholds' | 'alerts'>;
  /** The export finished (some files may have failed). */
  onFinished?: (result: RunExportResult) => void;
}

/** Exactly these run names. */
function exactly(names: readonly string[]): RegExp {
  return new RegExp(`^(?:${names.map(escapeRegExp).join('|')})$`, 'u');
}

function asApiError(err: unknown, req: RunExportRequest): ApiError {
  if (err instanceof ExportUsageError)
    return new ApiError(
      'bad-request',
      `${req.folder} is inside the open folder ${req.root}: rlwatch never writes into a run folder; choose a folder outside it`,
    );
  if (err instanceof ApiError) return err;
  return new ApiError(
    'io',
    `export into ${req.folder} failed: ${err instanceof Error ? err.message : String(err)}`,
  );
}

let nextId = 1;

/**
 * Checks the request (a folder is open, the runs exist, the folder is absolute and outside the open folder:
 * exportData's own check, without walking the open folder twice), then starts writing each run's data (CSV
 * long and wide, JSON history) and figures (seed 003's set and one per tag, PNG), and answers at once. A
 * failed file is reported and the rest go on; the end is pushed.
 */
export async function startRunExport(req: RunExportRequest): Promise<RunExportStarted> {
  if (req.root === null) throw new ApiError('unavailable', 'no folder is open');
  if (!isAbsolute(req.folder))
    throw new ApiError('bad-request', `export folder must be an absolute path, not ${req.folder}`);
  const known = new Set(req.known);
  for (const run of req.runs) if (!known.has(run)) throw new ApiError('not-found', `no run ${run}`);
  try {
    await outsideReadFolder(req.folder, req.root);
  } catch (err) {
    throw asApiError(err, req);
  }
  const id = nextId++;
  const tag = { id, folder: req.folder };
  exportData(req.root, {
    out: req.folder,
    csv: true,
    json: true,
    ...req.figures,
    png: true,
    runs: exactly(req.runs),
    onFile: (e) =>
      req.onProgress({
        ...tag,
        kind: 'file',
        path: e.path,
        ok: e.kind === 'written',
        ...(e.kind === 'failed' ? { message: e.message } : {}),
        done: e.done,
        total: e.total,
      }),
  }).then(
    (report) => {
      const result = { folder: report.out, written: report.written, failed: report.failed };
      try {
        req.onFinished?.(result);
      } catch {
        // Remembering the folder is a convenience: the export itself finished.
      }
      req.onProgress({ ...tag, kind: 'finished', result });
    },
    (err: unknown) => {
      const e = asApiError(err, req);
      req.onProgress({ ...tag, kind: 'failed', error: { code: e.code, message: e.message } });
    },
  );
  return tag;
}
