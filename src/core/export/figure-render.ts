// Draws a figure headless: chart.js in Node on @napi-rs/canvas (Skia), as PNG or as SVG (vector lines, real <text>).

import { availableParallelism } from 'node:os';
import {
  createCanvas,
  SvgExportFlag,
  type Canvas,
  type ImageMetadata,
  type SKRSContext2D,
  type SvgCanvas,
} from '@napi-rs/canvas';
import {
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  SubTitle,
  Title,
  type ChartItem,
} from 'chart.js';
import {
  FIGURE_FONT,
  figureLayout,
  figureTheme,
  panelConfiguration,
  TITLE_BAND,
  styledFigure,
  withoutHealthBands,
  type Figure,
  type FigureThemeName,
} from '../../shared/charts/figure';
import {
  captionLineHeight,
  captionLines,
  FIGURE_STYLES,
  titleBandHeight,
  titleLineHeight,
  type FigureStyle,
  type FigureStyleName,
} from '../../shared/charts/figure-style';

export type FigureFormat = 'png' | 'svg';

export interface FigureOptions {
  format: FigureFormat;
  /** Size in CSS pixels; a PNG has width·scale × height·scale pixels. */
  width: number;
  height: number;
  /** Pixel ratio of a PNG (1, 2, 3, …); an SVG is resolution-free and ignores it. */
  scale: number;
  theme: FigureThemeName;
  /** Fonts, line widths and caption: the screen's (default) or a paper's (FIGURE_STYLES). */
  style?: FigureStyleName;
  /** Draw the health bands (shaded healthy range, target line); default on. */
  healthBands?: boolean;
}

export const DEFAULT_FIGURE: FigureOptions = {
  format: 'png',
  width: 1600,
  height: 900,
  scale: 1,
  theme: 'light',
};

/** Limits that keep one figure's canvas bounded (a 16k × 16k RGBA canvas is already 1 GiB). */
export const MAX_FIGURE_SIDE = 8192;
export const MAX_FIGURE_PIXELS = 8192 * 8192;

export class FigureSizeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FigureSizeError';
  }
}

let registered = false;
function registerOnce(): void {
  if (registered) return;
  registered = true;
  Chart.register(
    LineController,
    LineElement,
    PointElement,
    LinearScale,
    LogarithmicScale,
    Title,
    SubTitle,
    Legend,
  );
}

/** The options checked: whole positive sizes within the limits. */
export function checkFigureOptions(o: FigureOptions): FigureOptions {
  const whole = (n: number, what: string, max: number): number => {
    if (!Number.isFinite(n) || n < 1 || n > max)
      throw new FigureSizeError(`${what} must be 1 to ${max}, not ${n}`);
    return Math.round(n);
  };
  const width = whole(o.width, 'width', MAX_FIGURE_SIDE);
  const height = whole(o.height, 'height', MAX_FIGURE_SIDE);
  if (!Number.isFinite(o.scale) || o.scale <= 0 || o.scale > 8)
    throw new FigureSizeError(`scale must be above 0 and at most 8, not ${o.scale}`);
  if (o.format === 'png' && width * height * o.scale * o.scale > MAX_FIGURE_PIXELS)
    throw new FigureSizeError(
      `${width}×${height} at scale ${o.scale} is over ${MAX_FIGURE_PIXELS} pixels: make it smaller`,
    );
  return { ...o, width, height };
}

/** The title band as drawn: its title and caption lines and its height (the panels go below it). */
interface TitleBand {
  style: FigureStyle;
  title: string[];
  caption: string[];
  height: number;
}

/** The title's and caption's lines in the style's fonts at this width (measured on a scratch canvas), and the
 * band's height. The screen style keeps its one-line title and caption (cut with an ellipsis) in TITLE_BAND. */
function titleBand(figure: Figure, o: FigureOptions): TitleBand {
  const style = FIGURE_STYLES[o.style ?? 'screen'];
  const subtitle = figure.subtitle ?? '';
  if (style.name === 'screen')
    return { style, title: [figure.title], caption: subtitle ? [subtitle] : [], height: TITLE_BAND };
  const ctx = createCanvas(1, 1).getContext('2d');
  const width = o.width - 2 * margin(style);
  ctx.font = `bold ${style.titlePx}px ${FIGURE_FONT}`;
  const title = captionLines(figure.title, width, style.titleLines, (t) => ctx.measureText(t).width);
  // No title line (a lone panel on paper): the caption starts where the title would.
  ctx.font = `${style.captionPx}px ${FIGURE_FONT}`;
  const caption = captionLines(subtitle, width, style.captionLines, (t) => ctx.measureText(t).width);
  return { style, title, caption, height: titleBandHeight(style, title.length, caption.length) };
}

/** The title band's left and right margin. */
const margin = (style: FigureStyle): number => (style.name === 'screen' ? 16 : 4);

/** The title band: title in bold, the caption below it, left-aligned (drawn in CSS pixels; ctx is scaled). */
function drawTitleBand(
  ctx: SKRSContext2D,
  band: TitleBand,
  width: number,
  text: string,
  muted: string,
): void {
  const { style } = band;
  const left = margin(style);
  const screen = style.name === 'screen';
  ctx.textBaseline = 'alphabetic';
  ctx.textAlign = 'left';
  ctx.fillStyle = text;
  ctx.font = `bold ${style.titlePx}px ${FIGURE_FONT}`;
  // The screen band's baselines as ever (26, then 46); another style's from its sizes.
  let y = screen ? 26 : band.title.length > 0 ? Math.ceil(style.titlePx * 1.1) : 0;
  band.title.forEach((line, i) => {
    if (i > 0) y += titleLineHeight(style);
    ctx.fillText(fit(ctx, line, width - 2 * left), left, y);
  });
  ctx.fillStyle = muted;
  ctx.font = `${style.captionPx}px ${FIGURE_FONT}`;
  band.caption.forEach((line, i) => {
    y += screen
      ? 20
      : i === 0 && band.title.length === 0
        ? Math.ceil(style.captionPx * 1.1)
        : captionLineHeight(style);
    ctx.fillText(fit(ctx, line, width - 2 * left), left, y);
  });
}

/** `s` shortened with an ellipsis to fit `max` pixels in the current font. */
function fit(ctx: SKRSContext2D, s: string, max: number): string {
  if (ctx.measureText(s).width <= max) return s;
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(s.slice(0, mid) + '…').width <= max) lo = mid;
    else hi = mid - 1;
  }
  return s.slice(0, lo) + '…';
}

/**
 * Raster canvases kept for the next figure of the same size. Each canvas is megabytes of memory outside V8's
 * heap: a fresh one per figure and panel made V8 run a full collection every figure or two (half of a small-data
 * export's time). A canvas taken is reset as a new one is (setting its size clears its pixels and drawing state).
 * At most MAX_POOLED_PIXELS are kept (a long-lived app holds no more than that after an export).
 */
class CanvasPool {
  private readonly free = new Map<string, Canvas[]>();
  private pixels = 0;

  take(width: number, height: number): Canvas {
    const c = this.free.get(`${width}x${height}`)?.pop();
    if (!c) return createCanvas(width, height);
    this.pixels -= c.width * c.height;
    c.width = width;
    c.height = height;
    return c;
  }

  /** Hands `c` back, its CSS size being `width`×`height` (chart.js made its buffer larger by the pixel ratio). */
  give(c: Canvas, width: number, height: number): void {
    const size = c.width * c.height;
    if (size > MAX_POOLED_PIXELS) return;
    // Over the budget: the canvases kept longest go (sizes of figures past).
    for (const [key, list] of this.free) {
      if (this.pixels + size <= MAX_POOLED_PIXELS) break;
      for (const old of list) this.pixels -= old.width * old.height;
      this.free.delete(key);
    }
    const key = `${width}x${height}`;
    const list = this.free.get(key);
    if (list) list.push(c);
    else this.free.set(key, [c]);
    this.pixels += size;
  }
}

/** 16 M pixels (64 MiB): a few 1600×900 figures and their panels, one figure at scale 2. */
const MAX_POOLED_PIXELS = 16 * 1024 * 1024;
const pool = new CanvasPool();

/** Pixels of the canvases figures being encoded may hold at once (beyond the one drawn). */
const ENCODING_PIXELS = 32 * 1024 * 1024;

/**
 * How many PNG figures an export lets be encoded (on libuv's thread pool) while it draws the next: one per core,
 * at least one, fewer for big figures (each holds its canvas until encoded), and one pool thread always left for
 * file IO (the app keeps reading runs during an export). A small-data figure draws in a third of the time it takes
 * to encode: with one encode at a time the drawing thread mostly waits.
 */
export function encodesAhead(o: Pick<FigureOptions, 'width' | 'height' | 'scale'>): number {
  const pixels = o.width * o.height * o.scale * o.scale;
  const poolThreads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  return Math.max(1, Math.min(availableParallelism(), poolThreads - 1, Math.floor(ENCODING_PIXELS / pixels)));
}

/**
 * Draws one panel with chart.js on `canvas` (chart.js sizes the drawing buffer from its CSS size × ratio),
 * hands it to `use` while drawn, then drops the chart (destroying clears the canvas).
 */
function withPanel(
  canvas: Canvas | SvgCanvas,
  figure: Figure,
  i: number,
  ratio: number,
  themeName: FigureThemeName,
  style: FigureStyle,
  use: () => void,
): void {
  // The canvas still has its CSS size here (chart.js scales the buffer by the ratio when it starts).
  const config = panelConfiguration(figure.panels[i]!, figureTheme(themeName), ratio, canvas.width, style);
  // A non-DOM platform: chart.js draws synchronously (no animation) on construction.
  const chart = new Chart(canvas as unknown as ChartItem, config);
  try {
    use();
  } finally {
    chart.destroy();
  }
}

/** PNG: each panel drawn on its own canvas, then placed on the figure's canvas under the title band. */
function drawPng(figure: Figure, o: FigureOptions): Canvas {
  const theme = figureTheme(o.theme);
  const W = Math.round(o.width * o.scale);
  const H = Math.round(o.height * o.scale);
  const canvas = pool.take(W, H);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = theme.panel;
  ctx.fillRect(0, 0, W, H);
  const band = titleBand(figure, o);
  ctx.save();
  ctx.scale(o.scale, o.scale);
  drawTitleBand(ctx, band, o.width, theme.text, theme.muted);
  ctx.restore();
  figureLayout(figure, o.width, o.height, band.height).forEach((r, i) => {
    // CSS size: chart.js scales the drawing buffer by the ratio itself.
    const panel = pool.take(r.width, r.height);
    withPanel(panel, figure, i, o.scale, o.theme, band.style, () =>
      ctx.drawImage(panel, Math.round(r.x * o.scale), Math.round(r.y * o.scale)),
    );
    pool.give(panel, r.width, r.height);
  });
  return canvas;
}

/** An SVG document's inner markup and attributes: what goes inside a nested <svg> at a panel's place. */
function innerSvg(doc: string): string {
  const start = doc.indexOf('<svg');
  const open = doc.indexOf('>', start);
  const end = doc.lastIndexOf('</svg>');
  if (start < 0 || open < 0 || end < 0) return '';
  return doc.slice(open + 1, end);
}

/**
 * Skia's SVG `<text>` placed as a paper's tools expect: Skia writes one x (and y) per glyph ("10, 22.0, 33.0, "),
 * which pins every letter (a restyled font overlaps itself) and is not valid SVG list syntax; the text starts at
 * the first glyph (chart.js' centring is already resolved there); an empty run (Skia splits at some spaces) goes.
 * The font-family attribute stays the one family Skia drew with (ImageMagick's renderer draws no text at all
 * for a family list); the document's <style> gives viewers that honour CSS the figure's fallback list. The
 * ligatures Skia's shaping writes into the text (`conﬁdence`) are spelled out, so the words can be found.
 */
export function svgTextRuns(doc: string): string {
  return doc
    .replace(/[\uFB00-\uFB06]/g, (c) => LIGATURES[c.charCodeAt(0) - 0xfb00]!)
    .replace(/<text\b[^>]*><\/text>/g, '')
    .replace(/(<text\b[^>]*?\s)x="([^",]*)(?:,[^"]*)?"/g, '$1x="$2"')
    .replace(/(<text\b[^>]*?\s)y="([^",]*)(?:,[^"]*)?"/g, '$1y="$2"');
}

/** U+FB00–U+FB06 (ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ) as the letters they join. */
const LIGATURES = ['ff', 'fi', 'fl', 'ffi', 'ffl', 'st', 'st'];

/** CSS for the figure's text: the fonts the figure asks for, restylable with one rule. */
const SVG_STYLE = `<style>text { font-family: ${FIGURE_FONT.replace(/"/g, "'")}; }</style>`;

/**
 * SVG: each panel drawn on its own SVG canvas (Skia's SVG backend, the same drawing as the PNG), moved in place.
 * Text stays text (`<text>`, selectable, restylable in a paper's tools), lines and the band stay vector paths.
 */
function renderSvg(figure: Figure, o: FigureOptions): Buffer {
  const theme = figureTheme(o.theme);
  const band = titleBand(figure, o);
  const head = createCanvas(o.width, band.height, SvgExportFlag.NoPrettyXML);
  drawTitleBand(head.getContext('2d'), band, o.width, theme.text, theme.muted);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${o.width}" height="${o.height}" viewBox="0 0 ${o.width} ${o.height}">`,
    SVG_STYLE,
    `<rect width="${o.width}" height="${o.height}" fill="${theme.panel}"/>`,
    `<g class="title">${svgTextRuns(innerSvg(head.getContent().toString('utf8')))}</g>`,
  ];
  figureLayout(figure, o.width, o.height, band.height).forEach((r, i) => {
    const panel = createCanvas(r.width, r.height, SvgExportFlag.NoPrettyXML);
    withPanel(panel, figure, i, 1, o.theme, band.style, () =>
      parts.push(
        // A translated group, not a nested <svg x y>: ImageMagick's own renderer drew every nested panel at 0,0.
        `<g class="panel" transform="translate(${r.x} ${r.y})">`,
        svgTextRuns(innerSvg(panel.getContent().toString('utf8'))),
        '</g>',
      ),
    );
  });
  parts.push('</svg>');
  return Buffer.from(parts.join(''), 'utf8');
}

/** The figure as PNG or SVG bytes. Throws FigureSizeError on sizes out of bounds. */
export function renderFigure(shown: Figure, options: FigureOptions): Buffer {
  registerOnce();
  const o = checkFigureOptions(options);
  const figure = styledFigure(
    o.healthBands === false ? withoutHealthBands(shown) : shown,
    FIGURE_STYLES[o.style ?? 'screen'],
  );
  if (o.format === 'svg') return renderSvg(figure, o);
  const canvas = drawPng(figure, o);
  const bytes = canvas.toBuffer('image/png', pngMetadata(figure, o));
  pool.give(canvas, canvas.width, canvas.height);
  return bytes;
}

/** PNG text and density: the title, rlwatch as the software, 96 dpi × scale (a 2× figure prints at its CSS size). */
function pngMetadata(figure: Figure, o: FigureOptions): ImageMetadata {
  return { title: figure.title, software: 'rlwatch', resolution: Math.round(96 * o.scale) };
}

/**
 * The same bytes, with a PNG's encoding (about half its time) on libuv's thread pool: the figure is drawn before
 * this returns, so the caller can draw the next one while this one is encoded. Throws FigureSizeError at once.
 */
export function renderFigureAsync(shown: Figure, options: FigureOptions): Promise<Buffer> {
  registerOnce();
  const o = checkFigureOptions(options);
  const figure = styledFigure(
    o.healthBands === false ? withoutHealthBands(shown) : shown,
    FIGURE_STYLES[o.style ?? 'screen'],
  );
  if (o.format === 'svg') return Promise.resolve(renderSvg(figure, o));
  const canvas = drawPng(figure, o);
  const encoded = canvas.encode('png', pngMetadata(figure, o));
  // Back to the pool once encoded (not before: the encoder reads its pixels on another thread).
  void encoded.then(
    () => pool.give(canvas, canvas.width, canvas.height),
    () => {},
  );
  return encoded;
}
