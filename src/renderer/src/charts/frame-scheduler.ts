// Coalesces chart redraws: one update per chart per animation frame, time-sliced so a frame stays short.

export interface FrameTask {
  /** Draws; called at most once per frame however often it was scheduled. */
  flush(): void;
  /** A first draw (page load): such frames get the larger budget, so a grid of charts appears in few frames. */
  firstDraw?(): boolean;
  /** This flush only moves elements (a linked hover's readout and crosshair), drawing no canvas: such flushes all
   * run in the frame they were scheduled for, before the drawing ones, so every chart's crosshair moves together. */
  light?(): boolean;
  /** The chart's place on the page (lower is higher up; see nextPageOrder): first draws run in this order. */
  order?(): number;
}

/** The one browser API used, typed here so the module stays DOM-free (it is unit-tested in Node). */
interface BrowserFrames {
  requestAnimationFrame(cb: () => void): number;
}

export interface FrameScheduler {
  schedule(task: FrameTask): void;
  cancel(task: FrameTask): void;
  readonly pending: number;
  /** Calls `listener` once, after the frame in which the first chart was drawn with its data (at once if it was):
   * the page tells serve, whose held background work then starts (#36). */
  afterFirstDraw(listener: () => void): void;
}

let pageOrder = 0;

/** A chart's place on the page for its first draw: charts are created in the grid's order, so creation order. */
export function nextPageOrder(): number {
  return ++pageOrder;
}

const placeOf = (t: FrameTask): number => t.order?.() ?? Number.MAX_SAFE_INTEGER;

/**
 * Runs scheduled tasks in the next animation frame, oldest first, until `budgetMs` is spent (a first
 * draw may take the frame to `firstDrawBudgetMs`: loading, nothing to keep smooth yet); the rest wait
 * for the following frame (at least one task runs per frame, so nothing starves); light tasks (no canvas drawn)
 * all run, first, and their time counts against the budget. `perTaskOverheadMs`
 * counts work a task causes after the callback (the compositor's commit of each redrawn canvas). Tasks
 * that wait are coalesced, so when drawing cannot keep up each chart simply redraws less often.
 *
 * First draws run before other drawing, in page order (`order`), so the chart at the top of the page is drawn first
 * whichever window landed first; and the first chart this scheduler draws ends its frame, so it is shown before
 * the rest of the grid is drawn (#36: page open → first chart drawn).
 */
export function createFrameScheduler(
  raf: (cb: () => void) => unknown = (cb) =>
    (globalThis as unknown as BrowserFrames).requestAnimationFrame(cb),
  now: () => number = () => performance.now(),
  budgetMs = 8,
  firstDrawBudgetMs = 50,
  perTaskOverheadMs = 0,
): FrameScheduler {
  const queue = new Set<FrameTask>();
  let requested = false;
  /** A first draw has drawn (its task no longer reports firstDraw after its flush). */
  let drewFirst = false;
  let firstDrawListeners: (() => void)[] = [];
  const run = (): void => {
    requested = false;
    const start = now();
    let overhead = 0;
    const tasks = [...queue];
    for (const task of tasks)
      if (task.light?.()) {
        queue.delete(task);
        task.flush();
      }
    const drawing = tasks.filter((t) => queue.has(t));
    const firsts = new Set(drawing.filter((t) => t.firstDraw?.()));
    const ordered = [...firsts].sort((a, b) => placeOf(a) - placeOf(b));
    for (const task of drawing) if (!firsts.has(task)) ordered.push(task);
    for (const task of ordered) {
      if (!queue.delete(task)) continue;
      const firstDraw = firsts.has(task);
      const budget = firstDraw ? firstDrawBudgetMs : budgetMs;
      task.flush();
      overhead += perTaskOverheadMs;
      if (firstDraw && !drewFirst && !task.firstDraw!()) {
        drewFirst = true;
        const told = firstDrawListeners;
        firstDrawListeners = [];
        told.forEach((l) => l());
        break;
      }
      if (now() - start + overhead >= budget) break;
    }
    if (queue.size > 0) request();
  };
  const request = (): void => {
    if (requested) return;
    requested = true;
    raf(run);
  };
  return {
    schedule(task) {
      queue.add(task);
      request();
    },
    cancel(task) {
      queue.delete(task);
    },
    get pending() {
      return queue.size;
    },
    afterFirstDraw(listener) {
      if (drewFirst) listener();
      else firstDrawListeners.push(listener);
    },
  };
}

let shared: FrameScheduler | null = null;

/** The app-wide scheduler every chart shares (so the frame budget is shared too). */
export function frameScheduler(): FrameScheduler {
  // 4 ms of drawing per frame plus ~1.5 ms per redrawn canvas for its commit (software compositing).
  return (shared ??= createFrameScheduler(undefined, undefined, 4, 50, 1.5));
}
