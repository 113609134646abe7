// Reconnect delays, the one schedule for every link (remote endpoints, `watch --remote`, a browser tab to serve):
// exponential backoff with jitter, so endpoints that went down together do not retry in step.

export interface BackoffOptions {
  /** The first retry's nominal delay. */
  baseMs: number;
  /** The nominal delay never grows past this: an endpoint that comes back after any outage is tried again
   * within it (a frozen agent resumed after 2 minutes was reconnected 10 s or 23 s later, by chance, at 30 s). */
  maxMs: number;
  /** The cap instead for a link dropped for its own excess (a remote over its budget keeps backing off). */
  penaltyMaxMs: number;
  /** [0, 1): injected for tests. */
  random: () => number;
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  baseMs: 500,
  maxMs: 5_000,
  penaltyMaxMs: 30_000,
  random: () => Math.random(),
};

/** The delay before retry number `attempt` (0 for the first): "equal jitter", half fixed and half random, of
 * min(cap, base·2^attempt), so it still grows with every failure yet two clients spread apart. The cap is
 * `maxMs`, or `penaltyMaxMs` (when larger) after a link was dropped for its excess. */
export function backoffDelay(
  attempt: number,
  o: BackoffOptions = DEFAULT_BACKOFF,
  penalised = false,
): number {
  const cap = penalised ? Math.max(o.maxMs, o.penaltyMaxMs) : o.maxMs;
  const nominal = Math.min(cap, o.baseMs * 2 ** Math.min(Math.max(0, attempt), 30));
  return Math.round(nominal / 2 + o.random() * (nominal / 2));
}
