// The hovered x shared by every chart: the chart under the pointer sets it, every chart on the same x-axis mode marks it; it settles once the pointer rests.

import type { XAxisMode } from '../../../shared/charts/axis';

/** Where the pointer is: data x `x` on a chart drawn by `axis`, set by `source` (the hovered chart). */
export interface HoverPoint {
  axis: XAxisMode;
  x: number;
  source: object;
  /** The pointer has rested here for SETTLE_MS: the other charts then list their values too. */
  settled: boolean;
}

/**
 * How long the pointer rests before the charts other than the hovered one list their values. While it moves they
 * only move their crosshairs: laying out and painting every chart's readout each frame costs more than a frame
 * (docs/BENCHMARKS.md, linked hover), and values flying past on eight charts at once cannot be read anyway.
 */
export const SETTLE_MS = 120;

/** The timers the hover uses (replaceable in tests). */
export interface SettleTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: SettleTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export type HoverListener = (hover: HoverPoint | null) => void;

/**
 * One hovered x for the whole page. Listeners are told synchronously and should only mark themselves
 * stale and ask for a frame (the panels do: the readouts and crosshairs are drawn in the next animation
 * frame, all in one). A chart that is not drawn (off screen, not created) ignores the call.
 */
export class LinkedHover {
  private point: HoverPoint | null = null;
  private readonly listeners = new Set<HoverListener>();
  private settleTimer: unknown = null;

  constructor(
    private readonly settleMs = SETTLE_MS,
    private readonly timers: SettleTimers = realTimers,
  ) {}

  get current(): HoverPoint | null {
    return this.point;
  }

  /** The hover moved on `source`'s chart; no call to listeners when nothing changed. Unsettled until it rests. */
  set(source: object, axis: XAxisMode, x: number): void {
    const p = this.point;
    if (p && p.source === source && p.axis === axis && p.x === x) return;
    this.point = { axis, x, source, settled: false };
    this.restartSettle();
    this.emit();
  }

  /** The pointer left `source`'s chart: the hover ends, unless another chart already took it. */
  clear(source: object): void {
    if (this.point === null || this.point.source !== source) return;
    this.point = null;
    this.stopSettle();
    this.emit();
  }

  private restartSettle(): void {
    this.stopSettle();
    this.settleTimer = this.timers.setTimeout(() => {
      this.settleTimer = null;
      if (this.point === null || this.point.settled) return;
      this.point = { ...this.point, settled: true };
      this.emit();
    }, this.settleMs);
  }

  private stopSettle(): void {
    if (this.settleTimer === null) return;
    this.timers.clearTimeout(this.settleTimer);
    this.settleTimer = null;
  }

  subscribe(listener: HoverListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  private emit(): void {
    for (const l of this.listeners) l(this.point);
  }
}

/** The x a chart drawn by `axis` marks for `hover`: null without a hover or when it is on another x-axis mode. */
export function linkedX(hover: HoverPoint | null, axis: XAxisMode): number | null {
  return hover !== null && hover.axis === axis ? hover.x : null;
}

let shared: LinkedHover | null = null;

/** The page's one linked hover (every chart panel subscribes to it). */
export function linkedHover(): LinkedHover {
  return (shared ??= new LinkedHover());
}
