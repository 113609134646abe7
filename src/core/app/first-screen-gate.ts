// When the page's first screen has been asked for: background work of the first seconds (judging first reads) waits for it.

/** After the last series answer, this long without another: the page has asked for what its first screen draws. */
export const FIRST_SCREEN_QUIET_MS = 300;
/** The wait's bound: with no page asking (serve with no browser open), background work starts this long after it
 * is first waited for. */
export const FIRST_SCREEN_MAX_WAIT_MS = 3000;

/**
 * Opens once a page has asked for its first charts' series and then paused (`FIRST_SCREEN_QUIET_MS` after the last
 * answer), or `FIRST_SCREEN_MAX_WAIT_MS` after the first `opened()` call or a page's later ask for the run list
 * (`pageArrived`), whichever comes first; open for good after.
 * Under contention (#36) the first read's judging — about a second of CPU for 40 × 25k points — otherwise ran
 * beside the page's own first work, on the same cores.
 */
export class FirstScreenGate {
  private open = false;
  private waiting: Promise<void> | null = null;
  private release: (() => void) | null = null;
  private quiet: ReturnType<typeof setTimeout> | null = null;
  private bound: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly quietMs = FIRST_SCREEN_QUIET_MS,
    private readonly maxWaitMs = FIRST_SCREEN_MAX_WAIT_MS,
  ) {}

  /** Resolves when the gate is open (at once when it already is). */
  opened(): Promise<void> {
    if (this.open) return Promise.resolve();
    if (!this.waiting) {
      this.waiting = new Promise<void>((res) => (this.release = res));
      this.bound = setTimeout(() => this.openNow(), this.maxWaitMs);
      this.bound.unref?.();
    }
    return this.waiting;
  }

  /** A page asked for the run list (it is up and will ask its first series next): the bound counts from now. Under
   * load a page took longer than the bound to start, and the background work (10k runs' walk and reads) then ran
   * beside its first screen (#36). */
  pageArrived(): void {
    if (this.open || !this.bound) return;
    clearTimeout(this.bound);
    this.bound = setTimeout(() => this.openNow(), this.maxWaitMs);
    this.bound.unref?.();
  }

  /** A series window was answered: the gate opens after a pause in them. */
  seriesAnswered(): void {
    if (this.open) return;
    if (this.quiet) clearTimeout(this.quiet);
    this.quiet = setTimeout(() => this.openNow(), this.quietMs);
    this.quiet.unref?.();
  }

  /** Opens now (the app closes, or a test). */
  openNow(): void {
    if (this.open) return;
    this.open = true;
    if (this.quiet) clearTimeout(this.quiet);
    if (this.bound) clearTimeout(this.bound);
    this.release?.();
  }
}
