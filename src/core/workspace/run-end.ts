// How a run ended, from what its W&B log says: the exit record's code, or a cut-off tail that stopped growing.

import type { RunEnd } from '../../shared/domain';
import type { ProgressInfo } from '../readers/types';

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
