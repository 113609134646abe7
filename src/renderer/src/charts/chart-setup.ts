// chart.js registration, theme colours, run palette and the overlay plugin (band, target, markers, crosshair).

import {
  Chart,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  type ChartArea,
  type Plugin,
} from 'chart.js';
import zoomPlugin from 'chartjs-plugin-zoom';
import type { Marker } from './markers';

let registered = false;

/** Registers what the charts use, once (tree-shaken chart.js: no Tooltip, Legend, Filler or time scale). */
export function registerCharts(): void {
  if (registered) return;
  registered = true;
  Chart.register(LineController, LineElement, PointElement, LinearScale, LogarithmicScale, zoomPlugin);
}

export interface Theme {
  text: string;
  muted: string;
  grid: string;
  panel: string;
  warning: string;
  critical: string;
  band: string;
  target: string;
  restart: string;
  focus: string;
  dark: boolean;
}

/** Colours from the page's CSS custom properties (light/dark follow the OS or the app's theme). */
export function readTheme(el: Element): Theme {
  const cs = getComputedStyle(el);
  const v = (name: string, fallback: string): string => cs.getPropertyValue(name).trim() || fallback;
  const panel = v('--panel', '#ffffff');
  const dark = isDark(panel);
  return {
    text: v('--text', dark ? '#e6e9ed' : '#1b1f24'),
    muted: v('--muted', dark ? '#98a2ad' : '#5b6470'),
    grid: v('--border', dark ? '#2c333b' : '#d8dde3'),
    panel,
    warning: v('--warn', '#d97706'),
    critical: v('--danger', dark ? '#f87171' : '#dc2626'),
    band: dark ? 'rgba(34, 197, 94, 0.13)' : 'rgba(22, 163, 74, 0.10)',
    target: dark ? 'rgba(74, 222, 128, 0.85)' : 'rgba(21, 128, 61, 0.85)',
    restart: v('--muted', '#5b6470'),
    focus: v('--accent', '#2563eb'),
    dark,
  };
}

function isDark(color: string): boolean {
  const m = /^#([0-9a-f]{6})$/i.exec(color);
  if (!m) return matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;
  const n = parseInt(m[1]!, 16);
  const lum = 0.2126 * (n >> 16) + 0.7152 * ((n >> 8) & 255) + 0.0722 * (n & 255);
  return lum < 128;
}

let cachedTheme: Theme | null = null;

/** The page's theme, read once and shared by every chart until the theme changes (see onThemeChange). */
export function currentTheme(): Theme {
  return (cachedTheme ??= readTheme(document.documentElement));
}

const themeListeners = new Set<() => void>();
let themeWatching = false;

/**
 * Calls `listener` when the colours may have changed: the OS scheme flipped, or the app set a theme on
 * <html> (data-theme / class / style). One shared observer for all charts; returns the unsubscribe.
 */
export function onThemeChange(listener: () => void): () => void {
  themeListeners.add(listener);
  if (!themeWatching) {
    themeWatching = true;
    const notify = (): void => {
      cachedTheme = null;
      themeListeners.forEach((l) => l());
    };
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', notify);
    new MutationObserver(notify).observe(document.documentElement, {
      attributes: true,
      attributeFilter: ['data-theme', 'class', 'style'],
    });
  }
  return () => themeListeners.delete(listener);
}

/** Run colours for overlays (Okabe–Ito-like, readable on light and dark). */
const PALETTE = ['#2563eb', '#e4572e', '#17a398', '#9b5de5', '#f2a900', '#d6336c', '#4d908e', '#8d6e63'];
export const runColor = (i: number): string => PALETTE[i % PALETTE.length]!;

/** `#rrggbb` + alpha → rgba(). */
export function withAlpha(hex: string, alpha: number): string {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${n >> 16}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

/** What the overlay plugin draws; the component mutates it and schedules a redraw. */
export interface OverlayState {
  theme: Theme;
  band: { min: number | null; max: number | null; target: number | null } | null;
  markers: Marker[];
  /** Crosshair x (data units) while hovering, else null. */
  hoverX: number | null;
}

/** Draws the healthy band under the lines, and the target line, markers and crosshair over them. */
export function overlayPlugin(state: OverlayState): Plugin<'line'> {
  const clipTo = (ctx: CanvasRenderingContext2D, a: ChartArea): void => {
    ctx.beginPath();
    ctx.rect(a.left, a.top, a.right - a.left, a.bottom - a.top);
    ctx.clip();
  };
  return {
    id: 'rlwatchOverlay',
    beforeDatasetsDraw(chart) {
      const b = state.band;
      if (!b || (b.min === null && b.max === null)) return;
      const { ctx, chartArea: a } = chart;
      const y = chart.scales.y!;
      const logY = y.type === 'logarithmic';
      const top = b.max === null ? a.top : clampY(y.getPixelForValue(b.max), a);
      const bottom = b.min === null || (logY && b.min <= 0) ? a.bottom : clampY(y.getPixelForValue(b.min), a);
      if (!(bottom > top)) return;
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
          ctx.fillText('↺', px + 2, a.top + 10);
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
      if (state.hoverX !== null) {
        const px = x.getPixelForValue(state.hoverX);
        ctx.strokeStyle = state.theme.muted;
        ctx.lineWidth = 1;
        ctx.setLineDash([]);
        line(ctx, px, a.top, px, a.bottom);
      }
      ctx.restore();
    },
  };
}

function clampY(py: number, a: ChartArea): number {
  return Math.min(Math.max(py, a.top), a.bottom);
}

function line(ctx: CanvasRenderingContext2D, x0: number, y0: number, x1: number, y1: number): void {
  ctx.beginPath();
  ctx.moveTo(x0, y0);
  ctx.lineTo(x1, y1);
  ctx.stroke();
}

function toHex(colour: string): string {
  return /^#[0-9a-f]{6}$/i.test(colour) ? colour : '#2563eb';
}
