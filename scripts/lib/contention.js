// A stand-in trainer for the contended budget (#36): one busy process per core at normal priority, started before
// the benches start rlwatch and kept running until stopped.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

/**
 * Starts `count` (default: one per core) `node -e 'for (;;);'` spinners, each a separate process at the nice value
 * this process has (a trainer's data loaders run at normal priority). They are killed by `stop()`, and on this
 * process's exit or SIGINT / SIGTERM, so a failed bench never leaves them spinning.
 */
export function startContention(count = availableParallelism()) {
  const spinners = Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }),
  );
  const onSignal = () => {
    stop();
    process.exit(130);
  };
  const stop = () => {
    for (const p of spinners) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    process.off('exit', stop);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  process.on('exit', stop);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { count, pids: spinners.map((p) => p.pid), stop };
}
