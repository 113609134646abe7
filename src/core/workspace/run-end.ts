// How a run ended: its W&B log's exit record, or a cut-off tail that stopped growing, else its MLflow status.

import type { RunEnd } from '../../shared/domain';
import { mlflowRunEnd } from '../mlflow/run-meta';
import type { ProgressInfo } from '../readers/types';
import { fileInfo } from './file-info';
import type { LiveEntry, RunState } from './run-state';

/** A log cut mid-record whose file has not grown for this long belongs to a process that died. */
export const QUIET_CUT_TAIL_MS = 120_000;
/** A cut tail seen unchanged (same size, same complete bytes) for this long is reported as a read error:
 * the file does end mid-record now (a writer mid-record finishes it within milliseconds). */
export const CUT_TAIL_REPORT_MS = 3_000;

export interface EndEvidence {
  /** The W&B reader's progress fields (`exit_code` once the exit record is read). */
  progress: ProgressInfo | null;
  /** Bytes of complete records, and the file's size and mtime now. */
  bytesRead: number | null;
  size: number;
  mtimeMs: number;
}

/** The run's end per its newest W&B log; null while it may still be running. */
export function wandbRunEnd(log: EndEvidence, now: number): RunEnd | null {
  const code = log.progress?.fields['exit_code'];
  if (typeof code === 'number') return code === 0 ? 'finished' : 'crashed';
  const cut = log.bytesRead !== null && log.bytesRead < log.size;
  return cut && now - log.mtimeMs >= QUIET_CUT_TAIL_MS ? 'crashed' : null;
}

/** Where the log's complete records end, once its tail has been cut (mid-record) and unchanged for
 * CUT_TAIL_REPORT_MS; null while it is whole or still changing. */
function observeCutTail(
  run: RunState,
  path: string,
  bytesRead: number | null,
  size: number,
  now: number,
): RunState['cutTail'] {
  if (bytesRead === null || bytesRead >= size) {
    run.cutSeen = null;
    return null;
  }
  const seen = run.cutSeen;
  if (!seen || seen.path !== path || seen.offset !== bytesRead || seen.size !== size) {
    run.cutSeen = { path, offset: bytesRead, size, since: now };
    return null;
  }
  return now - seen.since >= CUT_TAIL_REPORT_MS ? { path, offset: bytesRead } : null;
}

/** Re-derives how the run ended from its newest W&B log, else its MLflow status; true when that changed. */
export async function updateRunEnd(run: RunState): Promise<boolean> {
  let log: LiveEntry | null = null;
  let mlflowEnd: RunEnd | null = null;
  for (const e of run.entries)
    if (e.state === 'live' && e.format === 'wandb') log = e;
    else if (e.state === 'live' && e.format === 'mlflow')
      mlflowEnd = mlflowRunEnd(e.live.progress) ?? mlflowEnd;
  let ended: RunEnd | null = log ? null : mlflowEnd;
  let cutTail: RunState['cutTail'] = null;
  if (log) {
    const info = await fileInfo(log.path);
    if (info) {
      const evidence = {
        progress: log.live.progress,
        bytesRead: log.live.bytesRead,
        size: info.size,
        mtimeMs: info.mtimeMs,
      };
      const now = Date.now();
      ended = wandbRunEnd(evidence, now);
      cutTail = observeCutTail(run, log.path, evidence.bytesRead, info.size, now);
    }
  }
  const sameTail = cutTail?.path === run.cutTail?.path && cutTail?.offset === run.cutTail?.offset;
  if (ended === run.ended && sameTail) return false;
  run.ended = ended;
  run.cutTail = cutTail;
  return true;
}
