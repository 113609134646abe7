// Figure presets: the screen look and the paper look (a journal column's size, its point sizes and line widths).

export type FigureStyleName = 'screen' | 'paper';

/** Sizes a standalone figure is drawn with, in CSS pixels (96 per inch: 1 pt = 4/3 px). */
export interface FigureStyle {
  name: FigureStyleName;
  /** The figure's title, its caption (the subtitle: what the band means, the runs), a panel's title, and every
   * other text (ticks, axis titles, legend, notes). */
  titlePx: number;
  captionPx: number;
  panelTitlePx: number;
  textPx: number;
  /** Every line's width is multiplied by this (runs, group means and IQM, markers). */
  lineScale: number;
  /** Lines the caption takes at most: one cut with an ellipsis on screen; wrapped on paper, so what the band
   * means is never cut off. */
  captionLines: number;
  /** Lines the title takes at most (on paper a long group name wraps rather than being cut). */
  titleLines: number;
  /** The legend's swatch width; the characters an entry keeps at least where names are shortened (as the sidebar
   * shortens run names, the part that differs kept, to half the panel's width; "tag · run" entries are long). */
  swatchPx: number;
  legendChars: number;
  /** Room between legend entries (chart.js' default 10). */
  legendPadding: number;
  /** Room around a panel's plot (top, right, bottom, left). */
  padding: { top: number; right: number; bottom: number; left: number };
}

const pt = (points: number): number => (points * 4) / 3;

export const FIGURE_STYLES: Record<FigureStyleName, FigureStyle> = {
  screen: {
    name: 'screen',
    titlePx: 18,
    captionPx: 12,
    panelTitlePx: 13,
    textPx: 11,
    lineScale: 1,
    captionLines: 1,
    titleLines: 1,
    swatchPx: 14,
    legendChars: 28,
    legendPadding: 10,
    padding: { top: 4, right: 24, bottom: 4, left: 8 },
  },
  // A paper's figure text is 8–9 pt at print size; lines 1–1.5 px (0.75–1.1 pt).
  paper: {
    name: 'paper',
    titlePx: pt(9),
    captionPx: pt(8),
    panelTitlePx: pt(8),
    textPx: pt(8),
    lineScale: 0.75,
    captionLines: 4,
    titleLines: 2,
    swatchPx: 10,
    legendChars: 40,
    legendPadding: 3,
    padding: { top: 2, right: 8, bottom: 2, left: 2 },
  },
};

/** The paper preset's size: one column of a two-column paper, 3.5 × 2.625 in, at 300 dpi (a PNG of 1050 × 788). */
export const PAPER_SIZE = { width: 336, height: 252, scale: 300 / 96 } as const;

/** Baseline-to-baseline distance of the title's and of the caption's lines. */
export const titleLineHeight = (style: FigureStyle): number => Math.ceil(style.titlePx * 1.25);
export const captionLineHeight = (style: FigureStyle): number => Math.ceil(style.captionPx * 1.35);

/** Height of the title band for its title and caption lines. */
export function titleBandHeight(style: FigureStyle, titleLines: number, captionLines: number): number {
  return Math.round(
    titleLines * titleLineHeight(style) + captionLines * captionLineHeight(style) + style.captionPx * 0.8,
  );
}

/** The caption's parts (" · " between them) as lines no wider than `maxWidth` by `measure`, at most `lines` (the
 * last cut with an ellipsis when more is left). */
export function captionLines(
  caption: string,
  maxWidth: number,
  lines: number,
  measure: (s: string) => number,
): string[] {
  if (caption === '') return [];
  const out: string[] = [];
  let line = '';
  for (const part of caption.split(' · ')) {
    const next = line === '' ? part : `${line} · ${part}`;
    if (line === '' || measure(next) <= maxWidth) line = next;
    else {
      out.push(line);
      line = part;
    }
  }
  out.push(line);
  // A part wider than a line is wrapped at its spaces.
  const wrapped = out.flatMap((l) => wrapWords(l, maxWidth, measure));
  if (wrapped.length <= lines) return wrapped;
  const kept = wrapped.slice(0, lines);
  kept[lines - 1] = `${kept[lines - 1]!} ${wrapped.slice(lines).join(' ')}`;
  return kept;
}

function wrapWords(line: string, maxWidth: number, measure: (s: string) => number): string[] {
  if (measure(line) <= maxWidth) return [line];
  const out: string[] = [];
  let cur = '';
  for (const w of line.split(' ')) {
    const next = cur === '' ? w : `${cur} ${w}`;
    if (cur === '' || measure(next) <= maxWidth) cur = next;
    else {
      out.push(cur);
      cur = w;
    }
  }
  if (cur !== '') out.push(cur);
  return out;
}
