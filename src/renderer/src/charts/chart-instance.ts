// One panel's chart.js instance: created on the first draw, datasets re-linked and scales swapped on view changes, zoom on first contact.

import { Chart, type ChartDataset } from 'chart.js';
import type { ZoomPluginOptions } from 'chartjs-plugin-zoom/types/options';
import { widen, type XAxisMode } from '../../../shared/charts/axis';
import {
  chartConfiguration,
  lineDatasets,
  overlayPoints,
  xScaleOptions,
  yBounds,
  yScaleOptions,
} from '../../../shared/charts/chart-options';
import type { ChartSpec } from '../../../shared/charts/chart-spec';
import { currentTheme, loadZoom, registerCharts, zoomLoaded } from './chart-setup';
import type { OverlayState } from '../../../shared/charts/overlay-plugin';
import type { PlotKeyAction } from './plot-keys';
import { bandFillPlugin, type BandFillState } from './seed-bands';
import type { Pt } from '../../../shared/charts/series-model';
import { fitY, type YFit } from '../../../shared/charts/y-range';

/** Where the pointer is over the plot: its data x and the visible x-span, or outside the plot area. */
export type PointerSpot = { x: number; span: number } | 'outside';

export class ChartInstance {
  private chart: Chart<'line', Pt[]> | null = null;
  private canvas: HTMLCanvasElement | null = null;
  /** What the overlay plugin draws; the panel sets band and markers and asks for a redraw. The theme is
   * filled in when the chart is created (reading styles during mount would force style passes). The hover's
   * crosshair is not drawn here: it is an element over the canvas (crosshairAt), so a hover redraws no chart. */
  readonly overlay: OverlayState = {
    theme: null as unknown as OverlayState['theme'],
    band: null,
    markers: [],
    dots: [],
    clipped: [],
  };
  /** chartjs-plugin-zoom is enabled per chart on first contact (pointer enters, plot focused, a key). */
  private zoomOn = false;
  /** Datasets must be re-linked (a rebuild made new arrays, or the smoothing/colour set changed). */
  private relink = true;
  /** The x-axis mode the x scale was built for (its tick labels follow it). */
  private builtXAxis: XAxisMode = 'step';
  /** Seed groups: their bands (filled by a plugin under the lines), their lines, and their edges for the y fit. */
  readonly bandFills: BandFillState = { fills: [] };
  private groupLines: ChartDataset<'line', Pt[]>[] = [];
  private groupFit: { raw: Pt[] }[] = [];

  /** `onViewChanged` runs when a zoom or pan by pointer completes. */
  constructor(private readonly onViewChanged: () => void) {}

  get created(): boolean {
    return this.chart !== null;
  }

  /** The next draw re-links the datasets (the series rebuilt their point arrays). */
  relinkDatasets(): void {
    this.relink = true;
  }

  /** The seed groups drawn after the run lines (their own runs left out of the spec); the next draw re-links. */
  setGroups(lines: ChartDataset<'line', Pt[]>[], fills: BandFillState['fills'], fit: { raw: Pt[] }[]): void {
    this.groupLines = lines;
    this.bandFills.fills = fills;
    this.groupFit = fit;
    this.relink = true;
  }

  /** Draws `spec` on `canvas` (sized by the panel: chart.js reads no layout), creating the chart on first use. */
  draw(canvas: HTMLCanvasElement, width: number, height: number, spec: ChartSpec): void {
    const fitted = this.groupFit.length > 0 ? [...spec.series, ...this.groupFit] : spec.series;
    const fit = fitY(fitted, spec.view.logY, spec.view.ignoreOutliers ?? false);
    Object.assign(this.overlay, overlayPoints(spec.series, fit));
    if (!this.chart) {
      this.relink = false;
      this.create(canvas, width, height, spec, fit);
      return;
    }
    const c = this.chart;
    const scales = c.options.scales!;
    const { view } = spec;
    if (this.relink) {
      this.relink = false;
      c.data.datasets = [...lineDatasets(spec.series, view.smoothing), ...this.groupLines];
      const wantType = view.logY ? 'logarithmic' : 'linear';
      if (scales.y!.type !== wantType) scales.y = yScaleOptions(view.logY, spec.band, this.overlay.theme);
      if (this.builtXAxis !== view.xAxis) {
        this.builtXAxis = view.xAxis;
        scales.x = xScaleOptions(view.xAxis, this.overlay.theme);
      }
    }
    Object.assign(scales.y!, yBounds(spec.band, view.logY, fit));
    c.update('none');
  }

  private create(canvas: HTMLCanvasElement, width: number, height: number, spec: ChartSpec, fit: YFit): void {
    registerCharts();
    this.zoomOn = false;
    this.canvas = canvas;
    this.overlay.theme = currentTheme();
    this.builtXAxis = spec.view.xAxis;
    canvas.width = width;
    canvas.height = height;
    const config = chartConfiguration(spec, this.overlay.theme, this.overlay);
    if (this.groupLines.length > 0) {
      config.data.datasets.push(...this.groupLines);
      Object.assign(config.options!.scales!.y!, yBounds(spec.band, spec.view.logY, fit));
    }
    config.plugins!.push(bandFillPlugin(this.bandFills));
    // Off until the pointer or keyboard reaches this chart (enableZoom): the plugin's Hammer.js manager and
    // per-update listener churn cost every chart otherwise.
    config.options!.plugins!.zoom = false as unknown as ZoomPluginOptions;
    this.chart = new Chart<'line', Pt[]>(canvas, config);
  }

  /** Drops the instance (a theme change: colours are baked into the options); the next draw creates a new one. */
  destroy(): void {
    this.chart?.destroy();
    this.chart = null;
    this.relink = true;
  }

  resize(width: number, height: number): void {
    if (this.chart && width > 0 && height > 0) this.chart.resize(width, height);
  }

  /** The visible x-range as "min,max" (the panel's data-x-range). */
  xRange(): string {
    const xs = this.chart!.scales.x!;
    return `${xs.min},${xs.max}`;
  }

  /** The y tick labels as drawn, "|"-joined (the panel's data-y-ticks). */
  yTicks(): string {
    const ys = this.chart!.scales.y!;
    return ys.ticks.map((t) => String(t.label ?? '')).join('|');
  }

  /** The visible y-range as "min,max" (the panel's data-y-range). */
  yRange(): string {
    const ys = this.chart!.scales.y!;
    return `${ys.min},${ys.max}`;
  }

  /** Starts zoom and pan on this chart; false while the plugin's chunk is still loading (`whenLoaded` runs after). */
  enableZoom(whenLoaded?: () => void): boolean {
    if (!this.chart) return false;
    if (this.zoomOn) return true;
    if (!zoomLoaded()) {
      void loadZoom().then(() => {
        if (this.enableZoom()) whenLoaded?.();
      });
      return false;
    }
    this.zoomOn = true;
    this.chart.options.plugins!.zoom = this.zoomOptions();
    // The update starts the plugin (its methods, Hammer, wheel and drag listeners) before the next event.
    this.chart.update('none');
    return true;
  }

  private zoomOptions(): ZoomPluginOptions {
    return {
      pan: { enabled: true, mode: 'x', modifierKey: 'shift', onPanComplete: () => this.onViewChanged() },
      zoom: {
        mode: 'x',
        wheel: { enabled: true, speed: 0.15 },
        pinch: { enabled: true },
        drag: { enabled: true, threshold: 6 },
        onZoomComplete: () => this.onViewChanged(),
      },
    };
  }

  isZoomed(): boolean {
    return this.zoomOn && this.chart !== null && this.chart.isZoomedOrPanned();
  }

  /** The zoomed x-range widened by `margin` of its width on each side; null when not zoomed. */
  zoomedRange(margin: number): [number, number] | null {
    if (!this.isZoomed()) return null;
    const x = this.chart!.scales.x!;
    return widen(x.min, x.max, margin);
  }

  /** Back to the full x-range; false when there is no chart yet. */
  resetZoom(): boolean {
    if (!this.chart) return false;
    if (this.zoomOn) this.chart.resetZoom('none');
    return true;
  }

  /** Zooms or pans by a plot key's action (reset is the panel's: it also re-fetches). */
  applyKey(action: Extract<PlotKeyAction, { kind: 'zoom' | 'pan' }>): void {
    const c = this.chart;
    if (!c || !this.zoomOn) return;
    if (action.kind === 'zoom') c.zoom({ x: action.factor }, 'none');
    else c.pan({ x: (c.chartArea.right - c.chartArea.left) * action.fraction }, undefined, 'none');
  }

  /** Where a crosshair at data x `x` goes (CSS pixels in the canvas); null without a chart or outside the plot area. */
  crosshairAt(x: number): { left: number; top: number; height: number } | null {
    if (!this.chart) return null;
    const a = this.chart.chartArea;
    const px = this.chart.scales.x!.getPixelForValue(x);
    if (!Number.isFinite(px) || px < a.left - 0.5 || px > a.right + 0.5) return null;
    return { left: px, top: a.top, height: a.bottom - a.top };
  }

  /** The visible x-span (data units); 0 without a chart. */
  xSpan(): number {
    const xs = this.chart?.scales.x;
    return xs ? xs.max - xs.min : 0;
  }

  /** The data x under a pointer at `clientX`; 'outside' beyond the plot area; null without a chart or an x. */
  pointerSpot(clientX: number): PointerSpot | null {
    if (!this.chart || !this.canvas) return null;
    const px = clientX - this.canvas.getBoundingClientRect().left;
    const a = this.chart.chartArea;
    if (px < a.left || px > a.right) return 'outside';
    const xs = this.chart.scales.x!;
    const x = xs.getValueForPixel(px);
    return x === undefined ? null : { x, span: xs.max - xs.min };
  }
}
