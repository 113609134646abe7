// Where the canvas readout's parts go: ChartReadout's box, grid columns and rows laid out by hand (DOM-free, unit-tested).

import type { Readout } from './readout';

/** The DOM readout's box as ChartReadout.svelte's style sets it (a change there is made here too). */
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
  const height = Math.min(
    row * BOX.line + 2 * (BOX.padY + BOX.border),
    Math.max(0, opts.plotHeight - BOX.heightLess),
  );
  const shown = height - 2 * BOX.border - BOX.padY;
  const rows = Math.min(row, Math.ceil(shown / BOX.line));
  const x = opts.right ? opts.plotWidth - BOX.right - width : BOX.left;
  return { x, y: BOX.top, width, height, rows, ops: ops.filter((o) => o.row < rows) };
}
