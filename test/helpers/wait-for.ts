// The one polling wait of the tests: vitest's waitFor over a boolean condition, with a name for the failure.

import { vi } from 'vitest';

/** Resolves once `cond()` holds; fails with "timed out waiting for WHAT" after `timeoutMs`. */
export function waitFor(cond: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  return vi.waitFor(
    () => {
      if (!cond()) throw new Error(`timed out waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: 20 },
  );
}
