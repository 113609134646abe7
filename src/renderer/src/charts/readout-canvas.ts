// The moving pointer's readout drawn on a canvas over the plot: the same box, rows and colours as ChartReadout, with no DOM layout per move.

import type { Readout } from './readout';

/** The DOM readout's box (ChartReadout.svelte's style): one place for both renderings' sizes. */
export const BOX = {
  top: 2,
  left: 48,
  right: 6,
  padX: 6,
  padY: 3,
  border: 1,
  gap: 8,
  line: 13,
  /** max-width: 100% - 60px; max-height: 100% - 4px (border box). */
  widthLess: 60,
  heightLess: 4,
  swatchW: 10,
  swatchH: 3,
  swatchGap: 4,
} as const;

/** One thing drawn: a text (left or right aligned in its cell) or a run's swatch. */
export type ReadoutOp =
  | {
      kind: 'text';
      text: string;
      x: number;
      row: number;
      width: number;
      align: 'left' | 'right';
      bold: boolean;
      muted: boolean;
    }
  | { kind: 'swatch'; x: number; row: number; colour: string; dash: readonly number[] };

export interface ReadoutLayout {
  /** The box's outer rectangle in CSS pixels of the plot box. */
  x: number;
  y: number;
  width: number;
  height: number;
  /** Lines shown, in whole or in part (the rest clipped, as the DOM box's overflow hides them). */
  rows: number;
  ops: ReadoutOp[];
}

/** Text width in CSS pixels at the readout's font (bold: the values and the x label). */
export type Measure = (text: string, bold: boolean) => number;

/**
 * Where each part of `readout` goes, as the DOM readout's grid places it: the x label across the columns, a header
 * (with smoothing), then per run its swatch and name, raw and smoothed values right-aligned, and its own step.
 */
export function layoutReadout(
  readout: Readout,
  opts: { multiRun: boolean; right: boolean; plotWidth: number; plotHeight: number },
  measure: Measure,
): ReadoutLayout {
  const smooth = readout.rows[0]?.smooth != null;
  const cols = smooth ? 4 : 3;
  const widths = new Array<number>(cols).fill(0);
  const grow = (c: number, w: number): void => void (widths[c] = Math.max(widths[c]!, w));
  const runW = (run: string): number =>
    opts.multiRun ? BOX.swatchW + BOX.swatchGap + measure(run, false) : 0;
  if (smooth) {
    grow(1, measure('raw', false));
    grow(2, measure('smoothed', false));
  }
  for (const r of readout.rows) {
    grow(0, runW(r.run));
    grow(1, measure(r.raw, true));
    if (smooth) grow(2, measure(r.smooth ?? '', true));
    grow(cols - 1, r.step === null ? 0 : measure(`@ step ${r.step}`, false));
  }
  const more = readout.more > 0 ? `+${readout.more} more` : '';
  const gaps = BOX.gap * (cols - 1);
  // Spanning texts (the x label, "+N more") wider than the columns: the extra goes to every column alike.
  const span = Math.max(measure(readout.x, true), more ? measure(more, false) : 0);
  const sum = widths.reduce((a, b) => a + b, 0) + gaps;
  if (span > sum) for (let c = 0; c < cols; c++) widths[c] = widths[c]! + (span - sum) / cols;
  let inner = Math.max(sum, span);
  // Too wide for the plot: the run column gives way (its names then end in an ellipsis), as minmax(0, …) does.
  const maxInner = Math.max(0, opts.plotWidth - BOX.widthLess - 2 * (BOX.padX + BOX.border));
  if (inner > maxInner) {
    widths[0] = Math.max(0, widths[0]! - (inner - maxInner));
    inner = maxInner;
  }
  const ops: ReadoutOp[] = [];
  const colX: number[] = [];
  for (let c = 0, x = 0; c < cols; x += widths[c]! + BOX.gap, c++) colX.push(x);
  let row = 0;
  ops.push({
    kind: 'text',
    text: readout.x,
    x: 0,
    row: row++,
    width: inner,
    align: 'left',
    bold: true,
    muted: false,
  });
  if (smooth) {
    ops.push({
      kind: 'text',
      text: 'raw',
      x: colX[1]!,
      row,
      width: widths[1]!,
      align: 'right',
      bold: false,
      muted: true,
    });
    ops.push({
      kind: 'text',
      text: 'smoothed',
      x: colX[2]!,
      row,
      width: widths[2]!,
      align: 'right',
      bold: false,
      muted: true,
    });
    row++;
  }
  for (const r of readout.rows) {
    if (opts.multiRun) {
      ops.push({ kind: 'swatch', x: 0, row, colour: r.colour, dash: r.dash ?? [] });
      const nameX = BOX.swatchW + BOX.swatchGap;
      ops.push({
        kind: 'text',
        text: r.run,
        x: nameX,
        row,
        width: Math.max(0, widths[0]! - nameX),
        align: 'left',
        bold: false,
        muted: false,
      });
    }
    ops.push({
      kind: 'text',
      text: r.raw,
      x: colX[1]!,
      row,
      width: widths[1]!,
      align: 'right',
      bold: true,
      muted: false,
    });
    if (smooth)
      ops.push({
        kind: 'text',
        text: r.smooth ?? '',
        x: colX[2]!,
        row,
        width: widths[2]!,
        align: 'right',
        bold: true,
        muted: false,
      });
    if (r.step !== null)
      ops.push({
        kind: 'text',
        text: `@ step ${r.step}`,
        x: colX[cols - 1]!,
        row,
        width: widths[cols - 1]!,
        align: 'left',
        bold: false,
        muted: true,
      });
    row++;
  }
  if (more)
    ops.push({
      kind: 'text',
      text: more,
      x: 0,
      row: row++,
      width: inner,
      align: 'left',
      bold: false,
      muted: true,
    });
  // The page's boxes are border-box: the limits hold the padding and border too; rows past the height are clipped
  // at the padding box (overflow: hidden), so the last one may show in part.
  const frame = 2 * (BOX.padX + BOX.border);
  const width = inner + frame;
  const height = Math.min(row * BOX.line + 2 * (BOX.padY + BOX.border), Math.max(0, opts.plotHeight - BOX.heightLess));
  const shown = height - 2 * BOX.border - BOX.padY;
  const rows = Math.min(row, Math.ceil(shown / BOX.line));
  const x = opts.right ? opts.plotWidth - BOX.right - width : BOX.left;
  return { x, y: BOX.top, width, height, rows, ops: ops.filter((o) => o.row < rows) };
}

/** The colours and fonts the DOM readout has, read from the page (its theme's custom properties). */
export interface ReadoutLook {
  font: string;
  bold: string;
  text: string;
  muted: string;
  border: string;
  background: string;
}

/** The readout's look from the DOM readout `el`'s computed style (shown or not: its theme's colours and font). */
export function readoutLook(el: Element): ReadoutLook {
  const cs = getComputedStyle(el);
  const family = cs.fontFamily || 'sans-serif';
  return {
    font: `11px ${family}`,
    bold: `bold 11px ${family}`,
    text: cs.color || '#111',
    muted: cs.getPropertyValue('--muted').trim() || '#6b7280',
    border: cs.borderTopColor || '#d8dde3',
    background: cs.backgroundColor || '#fff',
  };
}

/** Text cut to `width` with an ellipsis, as text-overflow: ellipsis shows it. */
function fit(ctx: CanvasRenderingContext2D, text: string, width: number): string {
  if (ctx.measureText(text).width <= width + 0.5) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(`${text.slice(0, mid)}…`).width <= width) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? '' : `${text.slice(0, lo)}…`;
}

/**
 * A canvas over the plot that shows a readout (or nothing): sized to the plot box, redrawn whole each call. It lives
 * in `host`'s closed shadow root, so the chart's figure still holds one canvas for the page's own queries (tests,
 * benches, a user's `figure canvas`).
 */
export class ReadoutCanvas {
  private look: ReadoutLook | null = null;
  private shown = false;
  private readonly widths = new Map<string, number>();
  private readonly canvas: HTMLCanvasElement;

  constructor(private readonly host: HTMLElement) {
    this.canvas = document.createElement('canvas');
    this.canvas.style.display = 'block';
    host.attachShadow({ mode: 'closed' }).append(this.canvas);
  }

  /** Draws `readout` (null: clears) over a plot box of `width` × `height` CSS pixels. */
  draw(
    readout: Readout | null,
    opts: { multiRun: boolean; right: boolean; width: number; height: number },
  ): void {
    const ctx = this.canvas.getContext('2d');
    if (!ctx) return;
    if (readout === null) {
      if (this.shown) ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
      this.shown = false;
      this.host.hidden = true;
      return;
    }
    const dpr = window.devicePixelRatio || 1;
    const w = Math.round(opts.width * dpr);
    const h = Math.round(opts.height * dpr);
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
      this.canvas.style.width = `${opts.width}px`;
      this.canvas.style.height = `${opts.height}px`;
    }
    // The theme is read when a hover starts (a theme change mid-move shows at the next hover).
    if (!this.shown || this.look === null) {
      this.look = readoutLook(this.host.parentElement?.querySelector('.chart-readout') ?? this.host);
      this.widths.clear();
    }
    const look = this.look;
    const measure: Measure = (text, bold) => {
      const key = `${bold ? 'b' : 'n'}${text}`;
      let m = this.widths.get(key);
      if (m === undefined) {
        ctx.font = bold ? look.bold : look.font;
        m = ctx.measureText(text).width;
        if (this.widths.size > 5000) this.widths.clear();
        this.widths.set(key, m);
      }
      return m;
    };
    const box = layoutReadout(
      readout,
      { multiRun: opts.multiRun, right: opts.right, plotWidth: opts.width, plotHeight: opts.height },
      measure,
    );
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, opts.width, opts.height);
    this.host.hidden = false;
    this.shown = true;
    ctx.beginPath();
    ctx.roundRect(box.x + 0.5, box.y + 0.5, box.width - 1, box.height - 1, 4);
    ctx.fillStyle = look.background;
    ctx.fill();
    ctx.strokeStyle = look.border;
    ctx.lineWidth = 1;
    ctx.stroke();
    const left = box.x + BOX.border + BOX.padX;
    const top = box.y + BOX.border + BOX.padY;
    ctx.save();
    ctx.beginPath();
    ctx.rect(box.x + BOX.border, box.y + BOX.border, box.width - 2 * BOX.border, box.height - 2 * BOX.border);
    ctx.clip();
    ctx.textBaseline = 'middle';
    for (const op of box.ops) {
      const mid = top + op.row * BOX.line + BOX.line / 2;
      if (op.kind === 'swatch') {
        const sx = left + op.x;
        const sy = Math.round(mid - BOX.swatchH / 2);
        if (op.dash.length === 0) {
          ctx.fillStyle = op.colour;
          ctx.fillRect(sx, sy, BOX.swatchW, BOX.swatchH);
        } else {
          // The dashed run's swatch: its dash at half length, as swatchBackground's gradient draws it.
          let at = 0;
          for (let k = 0; at < BOX.swatchW; k = (k + 1) % op.dash.length) {
            const len = op.dash[k]! / 2;
            if (k % 2 === 0) {
              ctx.fillStyle = op.colour;
              ctx.fillRect(sx + at, sy, Math.min(len, BOX.swatchW - at), BOX.swatchH);
            }
            at += len;
            if (len <= 0) break;
          }
        }
        continue;
      }
      ctx.font = op.bold ? look.bold : look.font;
      ctx.fillStyle = op.muted ? look.muted : look.text;
      const text = op.align === 'left' ? fit(ctx, op.text, op.width) : op.text;
      ctx.textAlign = op.align;
      ctx.fillText(text, left + op.x + (op.align === 'right' ? op.width : 0), mid);
    }
    ctx.restore();
  }
}
