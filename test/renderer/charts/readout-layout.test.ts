// The moving pointer's canvas readout: where its box, columns and rows go, as the DOM readout's grid places them.

import { describe, expect, test } from 'vitest';
import { BOX, layoutReadout, type ReadoutOp } from '../../../src/renderer/src/charts/readout-layout';
import type { Readout, ReadoutRow } from '../../../src/renderer/src/charts/readout';

/** 6 px a character, 7 in bold: widths the test can add up. */
const measure = (text: string, bold: boolean): number => text.length * (bold ? 7 : 6);

const row = (run: string, raw: string, extra: Partial<ReadoutRow> = {}): ReadoutRow => ({
  run,
  colour: '#123456',
  raw,
  smooth: null,
  step: null,
  ...extra,
});

const texts = (ops: ReadoutOp[]): string[] => ops.flatMap((o) => (o.kind === 'text' ? [o.text] : []));
const at = (ops: ReadoutOp[], text: string): Extract<ReadoutOp, { kind: 'text' }> =>
  ops.find((o): o is Extract<ReadoutOp, { kind: 'text' }> => o.kind === 'text' && o.text === text)!;

describe('layoutReadout', () => {
  const plot = { multiRun: true, right: false, plotWidth: 600, plotHeight: 180 };

  test('lists what the DOM readout lists, in its order: the x, then per run its swatch, name, value and own step', () => {
    const readout: Readout = {
      x: 'step 10',
      at: 10,
      more: 2,
      rows: [row('alpha', '3.5', { dash: [6, 4] }), row('beta', '12.25', { step: 12 })],
    };
    const { ops, x, y } = layoutReadout(readout, plot, measure);
    expect(texts(ops)).toEqual(['step 10', 'alpha', '3.5', 'beta', '12.25', '@ step 12', '+2 more']);
    expect(ops.filter((o) => o.kind === 'swatch')).toEqual([
      { kind: 'swatch', x: 0, row: 1, colour: '#123456', dash: [6, 4] },
      { kind: 'swatch', x: 0, row: 2, colour: '#123456', dash: [] },
    ]);
    // Left of the plot (the crosshair in its right half), below its top, as the DOM box's left/top.
    expect([x, y]).toEqual([BOX.left, BOX.top]);
    // The values share a right-aligned column as wide as the widest; the names share the first column.
    const [a, b] = [at(ops, '3.5'), at(ops, '12.25')];
    expect(a.align).toBe('right');
    expect([a.x, a.width]).toEqual([b.x, 5 * 7]);
    expect(a.x).toBe(BOX.swatchW + BOX.swatchGap + 5 * 6 + BOX.gap);
    expect(at(ops, '@ step 12').x).toBe(a.x + a.width + BOX.gap);
  });

  test('with smoothing: a raw / smoothed header and both values, bold, right-aligned', () => {
    const readout: Readout = {
      x: 'step 10',
      at: 10,
      more: 0,
      rows: [row('a', '1', { smooth: '0.5' })],
    };
    const { ops } = layoutReadout(readout, plot, measure);
    expect(texts(ops)).toEqual(['step 10', 'raw', 'smoothed', 'a', '1', '0.5']);
    expect(at(ops, 'raw')).toMatchObject({ row: 1, muted: true, align: 'right' });
    expect(at(ops, '0.5')).toMatchObject({ row: 2, bold: true, align: 'right', x: at(ops, 'smoothed').x });
  });

  test('right of the crosshair: the box ends 6 px from the plot’s right edge', () => {
    const readout: Readout = { x: 'step 1', at: 1, more: 0, rows: [row('a', '1')] };
    const box = layoutReadout(readout, { ...plot, right: true }, measure);
    expect(box.x + box.width).toBe(plot.plotWidth - BOX.right);
  });

  test('a narrow plot: the run column gives way (its names cut), the box stays inside max-width', () => {
    const readout: Readout = { x: 's', at: 1, more: 0, rows: [row('a-very-long-run-name-indeed', '1')] };
    const box = layoutReadout(readout, { ...plot, plotWidth: 150 }, measure);
    expect(box.width).toBe(150 - BOX.widthLess);
    const name = at(box.ops, 'a-very-long-run-name-indeed');
    expect(name.x + name.width + BOX.gap).toBe(at(box.ops, '1').x);
    expect(name.width).toBeLessThan(measure(name.text, false));
  });

  test('a short plot: the box stops 4 px short of its height and the rows past it are left out', () => {
    const rows = Array.from({ length: 12 }, (_, i) => row(`r${i}`, String(i)));
    const readout: Readout = { x: 'step 1', at: 1, more: 0, rows };
    const box = layoutReadout(readout, { ...plot, plotHeight: 100 }, measure);
    expect(box.height).toBe(100 - BOX.heightLess);
    // 96 px less border and top padding: 92 px of lines, 13 px each: 7 lines, the last in part.
    expect(box.rows).toBe(Math.ceil((100 - BOX.heightLess - 2 * BOX.border - BOX.padY) / BOX.line));
    expect(Math.max(...box.ops.map((o) => o.row))).toBe(box.rows - 1);
    expect(texts(box.ops)).not.toContain('r11');
  });

  test('a single-run chart names no run: no swatch, no name, the value in the second column', () => {
    const readout: Readout = { x: 'step 1', at: 1, more: 0, rows: [row('', '2')] };
    const { ops } = layoutReadout(readout, { ...plot, multiRun: false }, measure);
    expect(ops.some((o) => o.kind === 'swatch')).toBe(false);
    expect(texts(ops)).toEqual(['step 1', '2']);
  });
});
