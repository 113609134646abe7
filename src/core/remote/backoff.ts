// Reconnect delays: exponential backoff with jitter, so endpoints that went down together do not retry in step.

export interface BackoffOptions {
  /** The first retry's nominal delay. */
  baseMs: number;
  /** The nominal delay never grows past this. */
  maxMs: number;
  /** [0, 1): injected for tests. */
  random: () => number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000, random: Math.random };

/** The delay before retry number `attempt` (0 for the first): "equal jitter", half fixed and half random, of
 * min(max, base·2^attempt), so it still grows with every failure yet two clients spread apart. */
export function backoffDelay(attempt: number, o: BackoffOptions = DEFAULT_BACKOFF): number {
  const nominal = Math.min(o.maxMs, o.baseMs * 2 ** Math.min(Math.max(0, attempt), 30));
  return Math.round(nominal / 2 + o.random() * (nominal / 2));
}
