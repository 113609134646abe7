// Runs a flush at most once per gap however often it is asked: a burst of pushes becomes one state apply.

export interface CoalesceTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
  now(): number;
}

const REAL_TIMERS: CoalesceTimers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};

export class Coalescer {
  private timer: unknown = null;
  private last = -Infinity;

  /** `flush` runs on the next turn after a request, and then at most once per `gapMs` while requests keep coming. */
  constructor(
    private readonly flush: () => void,
    private readonly gapMs: number,
    private readonly timers: CoalesceTimers = REAL_TIMERS,
  ) {}

  /** Asks for a flush; a flush already waiting takes this request along. */
  request(): void {
    if (this.timer !== null) return;
    const wait = Math.max(0, this.last + this.gapMs - this.timers.now());
    this.timer = this.timers.set(() => this.run(), wait);
  }

  /** Flushes now (a user's own action shows at once), cancelling the waiting one. */
  now(): void {
    this.cancel();
    this.run();
  }

  cancel(): void {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
  }

  private run(): void {
    this.timer = null;
    this.last = this.timers.now();
    this.flush();
  }
}
