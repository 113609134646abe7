// When the page's first screen is drawn: background work of the first seconds (judging first reads) waits for it.

/** The wait's bound: with no page drawing (serve with no browser open, a page on another view, a remote client),
 * background work starts this long after it is first waited for. */
export const FIRST_SCREEN_MAX_WAIT_MS = 3000;

/**
 * Opens when a page says it has drawn its first chart (`drawn()`, the page's `app.firstScreen` notice), or
 * `FIRST_SCREEN_MAX_WAIT_MS` after the first `opened()` call or a page's later ask for the run list (`pageArrived`),
 * whichever comes first; open for good after.
 * Under contention (#36) the first read's judging — about a second of CPU for 40 × 25k points — otherwise ran
 * beside the page's own first work, on the same cores. Before, the gate opened 300 ms after the last series answer:
 * the page's early series burst is answered while its grid is still being made, so under load the judging started
 * before the first chart was drawn.
 */
export class FirstScreenGate {
  private open = false;
  private waiting: Promise<void> | null = null;
  private release: (() => void) | null = null;
  private bound: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly maxWaitMs = FIRST_SCREEN_MAX_WAIT_MS) {}

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

  /** A page has drawn its first chart with its data: the gate opens. */
  drawn(): void {
    this.openNow();
  }

  /** A page asked for the run list (it is up and will draw its first chart next): the bound counts from now. Under
   * load a page took longer than the bound to start, and the background work (10k runs' walk and reads) then ran
   * beside its first screen (#36). */
  pageArrived(): void {
    if (this.open || !this.bound) return;
    clearTimeout(this.bound);
    this.bound = setTimeout(() => this.openNow(), this.maxWaitMs);
    this.bound.unref?.();
  }

  /** Opens now (a page drew its first chart, the app closes, or a test). */
  openNow(): void {
    if (this.open) return;
    this.open = true;
    if (this.bound) clearTimeout(this.bound);
    this.release?.();
  }
}
