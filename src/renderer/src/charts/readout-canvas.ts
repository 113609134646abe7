// The moving pointer's readout drawn on a canvas over the plot: the same box, rows and colours as ChartReadout, with no DOM layout per move.

import type { Readout } from './readout';
import { BOX, layoutReadout, type Measure } from './readout-layout';

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
