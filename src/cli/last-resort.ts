// Last-resort handlers for a long-running serve: an escaped error is logged and the server keeps serving.

let installed = false;

/**
 * Every request path is already total (a status code for any input); this is the net under that net.
 * Idempotent. Only for the long-running server commands: one-shot commands should still fail loudly.
 */
export function keepServingOnEscapedErrors(log: (message: string) => void = defaultLog): void {
  if (installed) return;
  installed = true;
  process.on('uncaughtException', (err) => log(`internal error (still serving): ${describe(err)}`));
  process.on('unhandledRejection', (reason) => log(`internal error (still serving): ${describe(reason)}`));
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
}

function defaultLog(message: string): void {
  process.stderr.write(`rlwatch: ${message}\n`);
}
