// An overlay legend names only the runs drawn on that chart, each in the colour of its line.

import { expect, test } from 'vitest';
import { runColor, runDash } from '../../../src/shared/charts/chart-theme';
import { legendEntries, swatchBackground } from '../../../src/shared/charts/legend';

const run = (name: string, ...ys: number[]): { run: string; raw: { x: number; y: number }[] } => ({
  run: name,
  raw: ys.map((y, x) => ({ x, y })),
});

test('runs without points, or with only NaN (or log-hidden) points, are left out; colours keep the drawing order', () => {
  expect(legendEntries([run('a'), run('b', 1, 2), run('c', NaN), run('d', NaN, 3)])).toEqual([
    { run: 'b', colour: runColor(1), dash: [] },
    { run: 'd', colour: runColor(3), dash: runDash(3) },
  ]);
});

test('no run drawn: an empty legend', () => {
  expect(legendEntries([run('a'), run('b')])).toEqual([]);
});

test('a dashed run has a dashed swatch; a solid one its plain colour', () => {
  expect(swatchBackground({ colour: '#0072b2', dash: [] })).toBe('#0072b2');
  expect(swatchBackground({ colour: '#0072b2', dash: [8, 4] })).toBe(
    'repeating-linear-gradient(90deg, #0072b2 0px 4px, transparent 4px 6px)',
  );
});
