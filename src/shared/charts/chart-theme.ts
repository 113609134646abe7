// The charts' colours as plain data: the theme type, its mapping from CSS custom properties, the run palette.

import { byCodeUnits } from '../order';

/** Plain colours the chart options and the overlay plugin draw with (no DOM: the headless exporter builds one too). */
export interface ChartTheme {
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

/**
 * The theme from CSS custom property values (`property('--panel')` is '' when unset). `prefersDark` decides
 * light or dark only when the panel colour is not a `#rrggbb` it can judge itself.
 */
export function themeFromProperties(
  property: (name: string) => string,
  prefersDark: () => boolean,
): ChartTheme {
  const v = (name: string, fallback: string): string => property(name).trim() || fallback;
  const panel = v('--panel', '#ffffff');
  const dark = isDark(panel) ?? prefersDark();
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

/** Dark by luminance for a `#rrggbb` colour; null when the colour is in another notation. */
function isDark(color: string): boolean | null {
  const m = /^#([0-9a-f]{6})$/i.exec(color);
  if (!m) return null;
  const n = parseInt(m[1]!, 16);
  const lum = 0.2126 * (n >> 16) + 0.7152 * ((n >> 8) & 255) + 0.0722 * (n & 255);
  return lum < 128;
}

/**
 * Run colours, the one palette of the dashboard and the figures: Okabe & Ito's colour-blind-safe set (black left
 * out: it vanishes on the dark theme), yellow last (faint on white; by then a dash tells the run too). Every pair
 * stays ΔE2000 ≥ 10 apart under simulated deuteranopia and protanopia (test/shared/charts/palette.test.ts).
 */
export const PALETTE: readonly string[] = [
  '#0072b2', // blue
  '#e69f00', // orange
  '#009e73', // bluish green
  '#d55e00', // vermillion
  '#cc79a7', // reddish purple
  '#56b4e9', // sky blue
  '#f0e442', // yellow
];
export const runColor = (i: number): string => PALETTE[i % PALETTE.length]!;

/** Line styles: the first three runs solid, then dashes, so more runs never rely on colour alone. */
const DASHES: readonly (readonly number[])[] = [[], [8, 4], [2, 3], [8, 3, 2, 3]];
export const runDash = (i: number): number[] => [
  ...(i < 3 ? DASHES[0]! : DASHES[1 + ((i - 3 + Math.floor(i / PALETTE.length)) % (DASHES.length - 1))]!),
];

/** The one rule for a drawn line's colour and dash (chart, legend and readout swatches alike): its palette index
 * (`colorIndex`, else its place `i`), and its own dash (a composed chart's tag) or its run's. */
export function lineLook(
  s: { colorIndex?: number; dash?: readonly number[] },
  i: number,
): {
  colour: string;
  dash: number[];
} {
  const look = s.colorIndex ?? i;
  return { colour: runColor(look), dash: s.dash ? [...s.dash] : runDash(look) };
}

/**
 * Stable looks: a run's palette index (its colour and dash) is its index in the folder's run names sorted in code-unit
 * order, so ticking or unticking runs never recolours the others, and any two of the folder's first 24 runs differ in
 * colour or dash. A run added later that sorts before others shifts theirs (the names, not the order they arrived,
 * decide). Names not in `names` get none (the chart falls back to the line's position).
 */
export function runStyleIndexes(names: Iterable<string>): Map<string, number> {
  const sorted = [...new Set(names)].sort(byCodeUnits);
  return new Map(sorted.map((n, i) => [n, i]));
}

/** A composed chart's k-th tag's dash: the first solid, then the run dashes in turn (its colour is its run's). */
export const tagDash = (k: number): number[] => [
  ...(k === 0 ? DASHES[0]! : DASHES[1 + ((k - 1) % (DASHES.length - 1))]!),
];

/** An earlier session's line (faded too): a dash no run style uses, so it never reads as another run. */
export const EARLIER_SESSION_DASH: readonly number[] = [3, 2];

/** `#rrggbb` + alpha → rgba(). */
export function withAlpha(hex: string, alpha: number): string {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${n >> 16}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}
