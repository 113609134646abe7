// Wraps a slow source (nvidia-smi, ioreg) so a tick never waits past its deadline for it.

import type { Clock } from './clock';

/**
 * One query in flight at a time. `within(ms)` answers the query's result if it arrives in time, else
 * the last result still younger than `maxAgeMs` (a value one tick late is still the machine's state),
 * else null. A query that hangs keeps running in the background; the next tick does not start a
 * second one, so a hung nvidia-smi costs one child, not one per tick.
 */
export class LateSource<T> {
  private inFlight: Promise<T | null> | null = null;
  private last: { value: T; at: number } | null = null;

  constructor(
    private readonly query: () => Promise<T>,
    private readonly clock: Clock,
    private readonly maxAgeMs: number,
  ) {}

  within(deadlineMs: number): Promise<{ value: T | null; late: boolean }> {
    if (this.inFlight === null) {
      const q = this.query().then(
        (value) => {
          this.last = { value, at: this.clock.now() };
          return value;
        },
        () => null,
      );
      this.inFlight = q;
      void q.finally(() => {
        if (this.inFlight === q) this.inFlight = null;
      });
    }
    const running = this.inFlight;
    return new Promise((resolve) => {
      let settled = false;
      const timer = this.clock.setTimeout(() => {
        if (settled) return;
        settled = true;
        resolve({ value: this.recent(), late: true });
      }, deadlineMs);
      void running.then((value) => {
        if (settled) return;
        settled = true;
        this.clock.clearTimeout(timer);
        resolve({ value, late: false });
      });
    });
  }

  private recent(): T | null {
    return this.last !== null && this.clock.now() - this.last.at <= this.maxAgeMs ? this.last.value : null;
  }
}
