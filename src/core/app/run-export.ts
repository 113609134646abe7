// export.run: the chosen runs' data written into a folder the user picked (never the open folder), with progress.

import { isAbsolute } from 'node:path';
import type { ExportProgress, RunExportResult } from '../../shared/domain';
import { ApiError } from '../../shared/result';
import { exportData, ExportUsageError } from '../export/export-run';

export interface RunExportRequest {
  /** The open folder (null: none is open). */
  root: string | null;
  /** The runs the open folder holds. */
  known: readonly string[];
  runs: readonly string[];
  folder: string;
  onProgress: (p: ExportProgress) => void;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Exactly these run names. */
function exactly(names: readonly string[]): RegExp {
  return new RegExp(`^(?:${names.map(escapeRegExp).join('|')})$`, 'u');
}

/** Writes the runs' data (CSV long and wide, JSON history) under `folder`; a failed file is listed, the rest go on. */
export async function exportRuns(req: RunExportRequest): Promise<RunExportResult> {
  if (req.root === null) throw new ApiError('unavailable', 'no folder is open');
  if (!isAbsolute(req.folder))
    throw new ApiError('bad-request', `export folder must be an absolute path, not ${req.folder}`);
  const known = new Set(req.known);
  for (const run of req.runs) if (!known.has(run)) throw new ApiError('not-found', `no run ${run}`);
  try {
    const report = await exportData(req.root, {
      out: req.folder,
      csv: true,
      json: true,
      runs: exactly(req.runs),
      onFile: (e) =>
        req.onProgress({
          folder: req.folder,
          path: e.path,
          ok: e.kind === 'written',
          ...(e.kind === 'failed' ? { message: e.message } : {}),
          done: e.done,
          total: e.total,
        }),
    });
    return { folder: report.out, written: report.written, failed: report.failed };
  } catch (err) {
    if (err instanceof ExportUsageError)
      throw new ApiError(
        'bad-request',
        `${req.folder} is inside the open folder ${req.root}: rlwatch never writes into a run folder; choose a folder outside it`,
      );
    if (err instanceof ApiError) throw err;
    throw new ApiError(
      'io',
      `export into ${req.folder} failed: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
