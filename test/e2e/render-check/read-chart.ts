// Reads one figure's chart.js state in the page (through the `?check=1` hook of chart-setup.ts) as a ChartState.

import type { ElementHandle } from 'playwright-core';
import type { ChartState } from './chart-state';

/**
 * The in-page reader, as source text: playwright sends functions by their text, and a transpiler's helpers
 * (esbuild's `__name`) would not exist in the page. Tick label boxes are measured the way chart.js draws
 * them: the label's font, alignment and baseline at its translation, rotated by its rotation.
 */
const READER_BODY = `
  if (typeof window.__rlwatchCharts !== 'function')
    throw new Error('window.__rlwatchCharts is missing: open the page with ?check=1');
  const chart = window.__rlwatchCharts().find((c) => c.canvas && c.canvas.closest('figure.chart') === figure);
  if (!chart) return null;
  // Lone points are drawn by the overlay plugin as dots (overlay-plugin.ts keeps its state on the plugin).
  const overlay = (chart.config.plugins || []).find((p) => p && p.id === 'rlwatchOverlay');
  const dots = overlay && overlay.state && Array.isArray(overlay.state.dots) ? overlay.state.dots : [];
  const DOT_RADIUS = 3;
  const dotAt = (x, y) => dots.some((d) => d.x === x && d.y === y);
  const series = chart.data.datasets.map((ds, i) => {
    const meta = chart.getDatasetMeta(i);
    const points = (ds.data || []).map((p, j) => {
      const el = meta.data[j];
      const finite = p && Number.isFinite(p.x) && Number.isFinite(p.y);
      const own = el && el.options ? el.options.radius : 0;
      return {
        x: finite ? p.x : null,
        y: finite ? p.y : null,
        py: el ? el.y : NaN,
        radius: finite && dotAt(p.x, p.y) ? Math.max(own, DOT_RADIUS) : own,
      };
    });
    return { label: String(ds.label ?? ''), points };
  });
  const ctx = chart.ctx;
  const ticks = [];
  for (const axis of ['x', 'y']) {
    const scale = chart.scales[axis];
    if (!scale || scale.options.display === false || scale.options.ticks.display === false) continue;
    for (const item of scale.getLabelItems()) {
      const lines = Array.isArray(item.label) ? item.label : [item.label];
      const o = item.options;
      ctx.save();
      ctx.font = item.font.string;
      ctx.textAlign = o.textAlign;
      ctx.textBaseline = o.textBaseline;
      const cos = Math.cos(o.rotation || 0);
      const sin = Math.sin(o.rotation || 0);
      const [tx, ty] = o.translation;
      let box = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
      let y = item.textOffset;
      for (const line of lines) {
        const m = ctx.measureText(String(line));
        const xs = [-m.actualBoundingBoxLeft, m.actualBoundingBoxRight];
        const ys = [y - m.actualBoundingBoxAscent, y + m.actualBoundingBoxDescent];
        for (const cx of xs)
          for (const cy of ys) {
            const px = tx + cx * cos - cy * sin;
            const py = ty + cx * sin + cy * cos;
            box = {
              left: Math.min(box.left, px),
              top: Math.min(box.top, py),
              right: Math.max(box.right, px),
              bottom: Math.max(box.bottom, py),
            };
          }
        y += Number(item.font.lineHeight);
      }
      ctx.restore();
      ticks.push({ axis, text: lines.map(String).join(' '), box });
    }
  }
  const yScale = chart.scales.y;
  return {
    run: figure.getAttribute('data-run') || '',
    tag: figure.getAttribute('data-tag') || '',
    width: chart.width,
    height: chart.height,
    logY: yScale.type === 'logarithmic',
    xAxis: figure.getAttribute('data-xaxis') || 'step',
    untimed: figure.getAttribute('data-untimed') === 'true',
    yMin: yScale.min,
    yMax: yScale.max,
    series,
    ticks,
    trim: null,
  };
`;

const reader = new Function('figure', READER_BODY) as (figure: Element) => ChartState | null;

/** The chart drawn in `figure`, or null while it has no chart.js instance yet. */
export function readChart(figure: ElementHandle<Element>): Promise<ChartState | null> {
  return figure.evaluate(reader);
}
