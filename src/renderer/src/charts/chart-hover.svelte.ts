// One chart's side of the linked hover: its crosshair and readout at the page's hovered x, the pointer and Shift+arrow keys that move it.

import type { XAxisMode } from '../../../shared/charts/axis';
import type { RunSeries } from '../../../shared/charts/series-model';
import type { ChartInstance } from './chart-instance';
import { linkedHover, linkedX } from './linked-hover';
import { readoutAt, readX, type Readout } from './readout';
import { steppedX } from './plot-keys';
import { withGroupRows, type DrawnGroup } from './seed-bands';

/** What the hover asks of its panel: the chart, its series and view, its elements, and a frame. */
export interface ChartHoverHost {
  plot: ChartInstance;
  series(): IterableIterator<RunSeries>;
  view(): { xAxis: XAxisMode; smoothing: number };
  /** The seed groups drawn (their rows replace their runs' rows) and whether IQM is drawn. */
  groups(): { drawn: readonly DrawnGroup[]; iqm: boolean };
  /** The readout names each line (several runs, or a composed chart's several lines). */
  multiRun(): boolean;
  visible(): boolean;
  /** The plot box's width in CSS pixels. */
  boxWidth(): number;
  elements(): { figure: HTMLElement; crosshair: HTMLDivElement };
  /** Ask for a frame (the panel's frame places the hover when `stale`). */
  requestFrame(): void;
  /** Draws the moving pointer's readout over the plot without DOM (null: none); the DOM readout is then empty. */
  drawReadout(readout: Readout | null, right: boolean): void;
}

export class ChartHover {
  readout = $state.raw<Readout | null>(null);
  /** The readout follows Shift+arrow keys (announced), not the pointer. */
  keyHovering = $state(false);
  /** The crosshair is in the plot's left half: the readout box sits right of it. */
  readoutRight = $state(false);
  /** The hover moved (or this chart redrew) since the readout and crosshair were placed. */
  stale = false;
  /** The page's hovered x (any chart's): this chart's readout and crosshair follow it when its x-axis is the same. */
  private readonly hover = linkedHover();

  constructor(private readonly host: ChartHoverHost) {}

  /** The chart redrew: a hover shown moves with it. */
  redrawn(): void {
    if (this.hover.current !== null || this.readout !== null) this.stale = true;
  }

  /**
   * The crosshair at the linked hover's x (nothing on another x-axis mode), and the readout on the hovered chart,
   * or on every chart once the pointer rests (moving, the others only move their crosshairs); off screen: later.
   */
  place(): void {
    const { plot } = this.host;
    if (!this.host.visible() || !plot.created) return;
    this.stale = false;
    const { figure, crosshair } = this.host.elements();
    const view = this.host.view();
    const point = this.hover.current;
    const x = linkedX(point, view.xAxis);
    // Outside this chart's plotted x-range (zoomed elsewhere, runs that end sooner) it shows nothing.
    const spot = x === null ? null : plot.crosshairAt(x);
    const listed = point !== null && (point.settled || point.source === plot);
    const groups = this.host.groups();
    const next =
      x === null || spot === null || !listed
        ? null
        : withGroupRows(
            readoutAt(
              this.host.series(),
              x,
              {
                xAxis: view.xAxis,
                smoothing: view.smoothing,
                span: plot.xSpan(),
                multiRun: this.host.multiRun(),
              },
              // With groups, every row first: the groups' runs are then left out, the groups put in.
              groups.drawn.length > 0 ? Infinity : undefined,
            ),
            groups.drawn,
            { iqm: groups.iqm, smoothing: view.smoothing > 0 },
          );
    // The pointer moving on this chart: its readout is drawn on a canvas (rows that change each move as DOM cost a
    // whole-document paint a frame, docs/BENCHMARKS.md); at rest and from the keyboard, the DOM readout (read
    // out by screen readers) lists the same rows.
    const moving = point !== null && point.source === plot && !point.settled && !this.keyHovering;
    const dom = moving ? null : next;
    if (dom !== null || this.readout !== null) this.readout = dom;
    const right = spot !== null && spot.left < this.host.boxWidth() / 2;
    this.host.drawReadout(moving ? next : null, right);
    if (x === null || spot === null || (listed && next === null)) {
      crosshair.hidden = true;
      delete figure.dataset.hoverX;
      return;
    }
    if (right !== this.readoutRight) this.readoutRight = right;
    crosshair.style.transform = `translate(${spot.left}px, ${spot.top}px)`;
    crosshair.style.height = `${spot.height}px`;
    crosshair.hidden = false;
    figure.dataset.hoverX = String(x);
  }

  /** Listens to the pointer on `canvas` and to the page's hover; answers the cleanup. */
  attach(canvas: HTMLCanvasElement): () => void {
    const move = (e: PointerEvent): void => this.pointerMove(e);
    const leave = (): void => this.clear();
    canvas.addEventListener('pointermove', move);
    canvas.addEventListener('pointerleave', leave);
    // The linked hover moved: charts on screen place theirs in the next frame (all in one); others do nothing.
    const off = this.hover.subscribe(() => {
      this.stale = true;
      if (this.host.visible() && this.host.plot.created) this.host.requestFrame();
    });
    return () => {
      off();
      this.clear();
      canvas.removeEventListener('pointermove', move);
      canvas.removeEventListener('pointerleave', leave);
    };
  }

  /** This chart's hover ends (the pointer left, the plot lost focus). */
  clear(): void {
    this.hover.clear(this.host.plot);
  }

  private pointerMove(e: PointerEvent): void {
    const { plot } = this.host;
    if (!plot.created) return;
    if (this.keyHovering) this.keyHovering = false;
    // The pointer may have entered before the chart existed (still loading): enable zoom on the first move.
    plot.enableZoom();
    const spot = plot.pointerSpot(e.clientX);
    if (spot === 'outside') return this.clear();
    if (spot === null) return;
    // The x of the point read here (the first run's nearest): every chart on this x-axis marks that x.
    const at = readX(this.host.series(), spot.x);
    if (at === null) return this.clear();
    this.hover.set(plot, this.host.view().xAxis, at);
  }

  /** Shift+arrows step the linked hover along the first drawn run's points (`dir`); Escape (null) ends it. */
  key(dir: -1 | 1 | null): void {
    this.keyHovering = dir !== null;
    if (dir === null) return this.clear();
    const first: RunSeries | undefined = this.host.series().next().value;
    if (!first) return;
    const axis = this.host.view().xAxis;
    // From the hover where it is (the pointer's, any chart's on this x-axis mode), else from the newest point.
    const x = steppedX(
      first.raw.map((p) => p.x),
      linkedX(this.hover.current, axis),
      dir,
    );
    if (x !== null) this.hover.set(this.host.plot, axis, x);
  }
}
