// Last-resort handlers for a long-running serve: an escaped error is logged and the server keeps serving.

let installed = false;
/** stderr failed a write (its reader is gone: EPIPE): nothing more is written to it. */
let stderrDead = false;

/** How long a signalled server may take to close before it is made to exit. */
const CLOSE_GRACE_MS = 5000;

/**
 * Every request path is already total (a status code for any input); this is the net under that net.
 * Idempotent. Only for the long-running server commands: one-shot commands should still fail loudly.
 *
 * A closed stdout or stderr pipe (`rlwatch agent … 2>&1 | head -1`) is no escaped error: its write error is taken
 * by a listener, and once stderr has failed nothing is logged into it again (each log of the last write's error
 * was the next write's error, forever, in a loop of next-tick callbacks that starved the signal handlers). A
 * SIGTERM or SIGINT exits: the command closes its server, and one that has not exited after 5 s, or a second
 * signal, exits at once.
 */
export function keepServingOnEscapedErrors(log: (message: string) => void = defaultLog): void {
  if (installed) return;
  installed = true;
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => {
    stderrDead = true;
  });
  const report = (what: unknown): void => {
    if (isBrokenPipe(what)) return;
    log(`internal error (still serving): ${describe(what)}`);
  };
  process.on('uncaughtException', report);
  process.on('unhandledRejection', report);
  let signalled = false;
  const onSignal = (): void => {
    if (signalled) process.exit(process.exitCode ?? 0);
    signalled = true;
    setTimeout(() => process.exit(process.exitCode ?? 0), CLOSE_GRACE_MS).unref();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** A write to a pipe or socket whose reader has gone: nothing to report, and nowhere to report it. */
function isBrokenPipe(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END';
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
}

function defaultLog(message: string): void {
  if (stderrDead || process.stderr.destroyed || !process.stderr.writable) return;
  process.stderr.write(`rlwatch: ${message}\n`);
}
