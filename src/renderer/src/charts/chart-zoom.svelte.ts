// One chart's zoom and pan: the pointer's and the keys' (plot-keys), the windows re-fetched once a zoom settles, the reset.

import type { ChartInstance } from './chart-instance';
import { ZOOM_MARGIN } from './chart-data.svelte';
import { plotKeyAction } from './plot-keys';

/** Re-query after a zoom or pan settles. */
export const REQUERY_DEBOUNCE_MS = 150;

/** What the zoom asks of its panel: the chart, its data's reloads, a redraw, and where Shift+arrows go. */
export interface ChartZoomHost {
  plot(): ChartInstance;
  reloadAll(range: [number, number] | null): void;
  reloadPartial(): void;
  schedule(): void;
  /** The view moved (zoom or pan): the panel's range attributes follow. */
  moved(): void;
  /** Shift+arrows step the linked hover (`dir`); Escape (null) ends it. */
  keyHover(dir: -1 | 1 | null): void;
}

export class ChartZoom {
  zoomed = $state(false);
  private requeryTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly host: ChartZoomHost) {}

  /** A zoom or pan settled: update the attributes now, re-fetch the visible windows once it stays put. */
  readonly viewChanged = (): void => {
    const plot = this.host.plot();
    this.zoomed = plot.isZoomed();
    this.host.moved();
    this.cancel();
    this.requeryTimer = setTimeout(() => {
      this.requeryTimer = null;
      this.host.reloadAll(plot.zoomedRange(ZOOM_MARGIN));
    }, REQUERY_DEBOUNCE_MS);
  };

  /** Back to the whole series (the button, 0, a double-click, another x-axis mode). */
  readonly reset = (): void => {
    if (!this.host.plot().resetZoom()) return;
    this.zoomed = false;
    this.cancel();
    this.host.reloadPartial();
    this.host.schedule();
  };

  /** The zoom chunk loads on first contact (pointer enter, focus). */
  readonly enable = (): void => void this.host.plot().enableZoom();

  /** Keyboard zoom and pan on the focused plot (see plot-keys); Shift+arrows and Escape move the hover. */
  readonly key = (e: KeyboardEvent): void => {
    const plot = this.host.plot();
    if (!plot.created) return;
    const action = plotKeyAction(e.key, e.shiftKey);
    if (action?.kind === 'hover' || action?.kind === 'hover-end') {
      e.preventDefault();
      return this.host.keyHover(action.kind === 'hover' ? action.dir : null);
    }
    const apply = (): void => {
      if (!action) return;
      if (action.kind === 'reset') return this.reset();
      plot.applyKey(action);
      this.viewChanged();
      this.host.schedule();
    };
    // A key before the zoom chunk arrived (it loads on focus or when the page is idle) acts once it is in.
    const ready = plot.enableZoom(apply);
    if (!action) return;
    e.preventDefault();
    if (ready) apply();
  };

  cancel(): void {
    if (this.requeryTimer) clearTimeout(this.requeryTimer);
    this.requeryTimer = null;
  }
}
