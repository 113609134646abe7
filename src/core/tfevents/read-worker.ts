// Entry of a read-pool worker thread: reads whole event files exactly as in-thread and posts the series back
// (short-lived: a reservation's small overshoot is transferred with them rather than trimmed by a copy).

import { parentPort } from 'node:worker_threads';
import { readEventFile } from './event-file-reader';
import { packRead, type ReadAnswer, type ReadJob } from './read-message';

parentPort?.on('message', (job: ReadJob) => {
  let answer: ReadAnswer;
  let transfer: ArrayBuffer[] = [];
  try {
    const packed = packRead(
      job.id,
      readEventFile(job.path, {
        checkDataCrc: job.checkDataCrc,
        shortLived: true,
        ...(job.onlyScalars ? { onlyScalars: job.onlyScalars } : {}),
      }),
    );
    answer = { id: job.id, ok: true, read: packed.read };
    transfer = packed.transfer;
  } catch (e) {
    answer = { id: job.id, ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(answer, transfer);
});
