// The hovered x shared by every chart: the chart under the pointer sets it, every chart on the same x-axis mode marks it.

import type { XAxisMode } from '../../../shared/charts/axis';

/** Where the pointer is: data x `x` on a chart drawn by `axis`, set by `source` (the hovered chart). */
export interface HoverPoint {
  axis: XAxisMode;
  x: number;
  source: object;
}

export type HoverListener = (hover: HoverPoint | null) => void;

/**
 * One hovered x for the whole page. Listeners are told synchronously and should only mark themselves
 * stale and ask for a frame (the panels do: the readouts and crosshairs are drawn in the next animation
 * frame, all in one). A chart that is not drawn (off screen, not created) ignores the call.
 */
export class LinkedHover {
  private point: HoverPoint | null = null;
  private readonly listeners = new Set<HoverListener>();

  get current(): HoverPoint | null {
    return this.point;
  }

  /** The hover moved on `source`'s chart; no call to listeners when nothing changed. */
  set(source: object, axis: XAxisMode, x: number): void {
    const p = this.point;
    if (p && p.source === source && p.axis === axis && p.x === x) return;
    this.point = { axis, x, source };
    this.emit();
  }

  /** The pointer left `source`'s chart: the hover ends, unless another chart already took it. */
  clear(source: object): void {
    if (this.point === null || this.point.source !== source) return;
    this.point = null;
    this.emit();
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
