// The grid's first chart is made alone: the rest of its charts are made once it is drawn with its data (or a bound
// passed), so the page's first chart is not drawn behind the mounting of the whole first screen (#36).

/** The longest the other charts wait for the first one's draw (its data slow to come, or it cannot draw: hidden). */
export const OTHERS_WAIT_MS = 1000;

export interface AfterFirstDeps {
  /** Calls back once the first chart is drawn with its data (at once if one already was): the frame scheduler's. */
  afterFirstDraw(listener: () => void): void;
  setTimer(cb: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
  /** Calls back in a task after the next frame (the browser's: requestAnimationFrame, then a timer). */
  afterNextFrame(cb: () => void): void;
}

/**
 * Admits the grid's charts: the first admitted is made at once; the others wait until the first chart is drawn (or
 * OTHERS_WAIT_MS after the first was held), then are made in the order they were admitted. Once open (a chart was
 * already drawn when the grid came, as after a switch back from the table view), every chart is made at once.
 */
export class ChartsAfterFirst {
  private open = false;
  private first = true;
  private held: string[] = [];
  private timer: unknown = null;

  constructor(
    private readonly make: (tag: string) => void,
    private readonly deps: AfterFirstDeps,
  ) {
    // Told in the frame that drew the first chart: the rest are made in a task after the next frame, so the page's
    // main thread is free for a frame once the first chart is shown (input; a probe reading its pixels) before they
    // are mounted (≈ 0.1 s); a chart drawn before this grid came opens it at once.
    let now = true;
    deps.afterFirstDraw(() => (now ? this.release() : this.later()));
    now = false;
  }

  /** The grid wants a chart for `tag` (on the first screen, or scrolled near). */
  admit(tag: string): void {
    if (this.open || this.first) {
      this.first = false;
      this.make(tag);
      return;
    }
    if (!this.held.includes(tag)) this.held.push(tag);
    this.timer ??= this.deps.setTimer(() => this.release(), OTHERS_WAIT_MS);
  }

  /** Charts still waiting for the first one's draw. */
  get waiting(): number {
    return this.held.length;
  }

  /** Stops the bound's timer (the grid is gone). */
  dispose(): void {
    if (this.timer !== null) this.deps.clearTimer(this.timer);
    this.timer = null;
  }

  private later(): void {
    this.deps.afterNextFrame(() => this.release());
  }

  private release(): void {
    if (this.open) return;
    this.open = true;
    this.dispose();
    const held = this.held;
    this.held = [];
    for (const tag of held) this.make(tag);
  }
}
