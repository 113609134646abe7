// The overlay plugin: the healthy band under the lines; target line and markers over them (no DOM).

import type { Chart, ChartArea, Plugin } from 'chart.js';
import type { BandRange } from './band';
import { withAlpha, type ChartTheme } from './chart-theme';
import type { Marker } from './markers';

/** The canvas context chart.js draws on (named through chart.js: this module compiles without the DOM library). */
type DrawContext = Chart['ctx'];

/** What the overlay plugin draws; the component mutates it and schedules a redraw. */
export interface OverlayState {
  theme: ChartTheme;
  band: BandRange | null;
  markers: Marker[];
  /** Points no line reaches (both neighbours absent or non-finite), drawn as dots in their run's colour. */
  dots?: { x: number; y: number; colour: string }[];
  /** Points outside a y-range that ignores outliers: a small triangle on the edge they went past. */
  clipped?: { x: number; above: boolean; colour: string }[];
  /** Non-finite values (a figure's lines carry their positions): a tick on the x-axis, +Inf at the top edge. */
  nonFinite?: { x: number; kind: 'nan' | 'inf' | '-inf'; colour: string }[];
  /** Words in the middle of a plot with nothing to draw ("no finite values (20 NaN)"); null or absent: none. */
  message?: string | null;
  /** Set while drawing: the healthy band lies wholly above or below the plotted range (said in words there). */
  bandOffScale?: 'above' | 'below' | null;
}

/** Radius of an isolated point's dot (TensorBoard draws lone points about this size). */
export const DOT_RADIUS = 3;

/** Draws the healthy band under the lines, and the target line and markers over them. The
 * state it draws from is kept on the plugin (`state`) so the render check can read what was drawn. */
export function overlayPlugin(state: OverlayState): Plugin<'line'> & { state: OverlayState } {
  const clipTo = (ctx: DrawContext, a: ChartArea): void => {
    ctx.beginPath();
    ctx.rect(a.left, a.top, a.right - a.left, a.bottom - a.top);
    ctx.clip();
  };
  return {
    id: 'rlwatchOverlay',
    state,
    beforeDatasetsDraw(chart) {
      const b = state.band;
      if (!b || (b.min === null && b.max === null)) return;
      const { ctx, chartArea: a } = chart;
      const y = chart.scales.y!;
      const logY = y.type === 'logarithmic';
      const top = b.max === null ? a.top : clampY(y.getPixelForValue(b.max), a);
      const bottom = b.min === null || (logY && b.min <= 0) ? a.bottom : clampY(y.getPixelForValue(b.min), a);
      state.bandOffScale = null;
      if (!(bottom > top)) {
        // Off the plotted range: never silently absent, say where it is.
        const above = b.min !== null && (logY && b.min <= 0 ? false : y.getPixelForValue(b.min) < a.top);
        state.bandOffScale = above ? 'above' : 'below';
        ctx.save();
        ctx.fillStyle = state.theme.target;
        ctx.font = '10px system-ui, sans-serif';
        ctx.textAlign = 'right';
        ctx.textBaseline = above ? 'top' : 'bottom';
        ctx.fillText(
          `healthy band ${state.bandOffScale} this range`,
          a.right - 4,
          above ? a.top + 2 : a.bottom - 2,
        );
        ctx.restore();
        return;
      }
      ctx.save();
      ctx.fillStyle = state.theme.band;
      ctx.fillRect(a.left, top, a.right - a.left, bottom - top);
      ctx.restore();
    },
    afterDatasetsDraw(chart) {
      const { ctx, chartArea: a } = chart;
      const x = chart.scales.x!;
      const y = chart.scales.y!;
      ctx.save();
      clipTo(ctx, a);
      const t = state.band?.target;
      if (t !== null && t !== undefined && !(y.type === 'logarithmic' && t <= 0)) {
        const py = y.getPixelForValue(t);
        if (py >= a.top && py <= a.bottom) {
          ctx.strokeStyle = state.theme.target;
          ctx.lineWidth = 1.25;
          ctx.setLineDash([6, 4]);
          line(ctx, a.left, py, a.right, py);
        }
      }
      // Restart labels never overprint each other: one too close to the last drawn keeps only its line.
      const labels: [number, number][] = [];
      for (const m of state.markers) {
        if (!Number.isFinite(m.x)) continue;
        const px = x.getPixelForValue(m.x);
        if (px < a.left - 1 || px > a.right + 1) continue;
        if (m.kind === 'restart') {
          ctx.strokeStyle = state.theme.restart;
          ctx.lineWidth = 1;
          ctx.setLineDash([2, 3]);
          line(ctx, px, a.top, px, a.bottom);
          ctx.setLineDash([]);
          ctx.fillStyle = state.theme.restart;
          ctx.font = '10px system-ui, sans-serif';
          const text = m.short ? `↺ ${m.short}` : '↺';
          const span: [number, number] = [px + 2, px + 2 + ctx.measureText(text).width + 4];
          if (!labels.some(([l, r]) => span[0] < r && l < span[1])) {
            ctx.fillText(text, span[0], a.top + 10);
            labels.push(span);
          }
        } else if (m.kind === 'alert') {
          const colour = m.severity === 'critical' ? state.theme.critical : state.theme.warning;
          ctx.globalAlpha = m.active === false ? 0.45 : 1;
          ctx.strokeStyle = colour;
          ctx.lineWidth = 1.5;
          ctx.setLineDash([]);
          line(ctx, px, a.top + 6, px, a.bottom);
          ctx.fillStyle = colour;
          ctx.beginPath();
          ctx.moveTo(px - 5, a.top);
          ctx.lineTo(px + 5, a.top);
          ctx.lineTo(px, a.top + 7);
          ctx.closePath();
          ctx.fill();
          ctx.globalAlpha = 1;
        } else {
          ctx.fillStyle = withAlpha(toHex(state.theme.focus), 0.18);
          ctx.fillRect(px - 3, a.top, 6, a.bottom - a.top);
          ctx.strokeStyle = state.theme.focus;
          ctx.lineWidth = 1.5;
          ctx.setLineDash([]);
          line(ctx, px, a.top, px, a.bottom);
        }
      }
      for (const d of state.dots ?? []) {
        const px = x.getPixelForValue(d.x);
        const py = y.getPixelForValue(d.y);
        if (!Number.isFinite(px) || !Number.isFinite(py)) continue;
        ctx.fillStyle = d.colour;
        ctx.beginPath();
        ctx.arc(px, py, DOT_RADIUS, 0, Math.PI * 2);
        ctx.fill();
      }
      for (const c of state.clipped ?? []) {
        const px = x.getPixelForValue(c.x);
        if (px < a.left - 1 || px > a.right + 1) continue;
        const edge = c.above ? a.top : a.bottom;
        const tip = c.above ? 1 : -1;
        ctx.fillStyle = c.colour;
        ctx.beginPath();
        ctx.moveTo(px - 4, edge + tip * 6);
        ctx.lineTo(px + 4, edge + tip * 6);
        ctx.lineTo(px, edge);
        ctx.closePath();
        ctx.fill();
      }
      for (const m of state.nonFinite ?? []) {
        const px = x.getPixelForValue(m.x);
        if (!Number.isFinite(px) || px < a.left - 1 || px > a.right + 1) continue;
        const top = m.kind === 'inf';
        ctx.strokeStyle = state.theme.critical;
        ctx.lineWidth = 1.5;
        ctx.setLineDash([]);
        line(ctx, px, top ? a.top : a.bottom, px, top ? a.top + 7 : a.bottom - 7);
      }
      if (state.message) {
        ctx.fillStyle = state.theme.muted;
        ctx.font = '13px system-ui, sans-serif';
        ctx.textAlign = 'center';
        ctx.textBaseline = 'middle';
        ctx.fillText(state.message, (a.left + a.right) / 2, (a.top + a.bottom) / 2);
      }
      ctx.restore();
    },
  };
}

function clampY(py: number, a: ChartArea): number {
  return Math.min(Math.max(py, a.top), a.bottom);
}

function line(ctx: DrawContext, x0: number, y0: number, x1: number, y1: number): void {
  ctx.beginPath();
  ctx.moveTo(x0, y0);
  ctx.lineTo(x1, y1);
  ctx.stroke();
}

function toHex(colour: string): string {
  return /^#[0-9a-f]{6}$/i.test(colour) ? colour : '#2563eb';
}
