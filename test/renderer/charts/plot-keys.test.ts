// Plot keys: + / − zoom by 1.5×, arrows pan by 15 % of the width, 0 / Home reset, Shift+arrows step the hover, Escape ends it, other keys pass through.

import { expect, test } from 'vitest';
import { plotKeyAction, steppedX } from '../../../src/renderer/src/charts/plot-keys';

test('zoom in and out are inverse factors', () => {
  expect(plotKeyAction('+')).toEqual({ kind: 'zoom', factor: 1.5 });
  expect(plotKeyAction('=')).toEqual({ kind: 'zoom', factor: 1.5 });
  expect(plotKeyAction('-')).toEqual({ kind: 'zoom', factor: 1 / 1.5 });
  expect(plotKeyAction('_')).toEqual({ kind: 'zoom', factor: 1 / 1.5 });
});

test('left pans towards earlier x (positive), right towards later', () => {
  expect(plotKeyAction('ArrowLeft')).toEqual({ kind: 'pan', fraction: 0.15 });
  expect(plotKeyAction('ArrowRight')).toEqual({ kind: 'pan', fraction: -0.15 });
});

test('0 and Home reset; anything else is not the plot’s', () => {
  expect(plotKeyAction('0')).toEqual({ kind: 'reset' });
  expect(plotKeyAction('Home')).toEqual({ kind: 'reset' });
  for (const key of ['a', 'Enter', 'ArrowUp', 'Tab', ' ']) expect(plotKeyAction(key)).toBeNull();
});

test('Shift+arrows step the hover instead of panning; Escape ends it', () => {
  expect(plotKeyAction('ArrowLeft', true)).toEqual({ kind: 'hover', dir: -1 });
  expect(plotKeyAction('ArrowRight', true)).toEqual({ kind: 'hover', dir: 1 });
  expect(plotKeyAction('ArrowRight', false)).toEqual({ kind: 'pan', fraction: -0.15 });
  expect(plotKeyAction('+', true)).toEqual({ kind: 'zoom', factor: 1.5 });
  expect(plotKeyAction('Escape')).toEqual({ kind: 'hover-end' });
});

test('steppedX: from nothing to the newest point, then point by point, staying at the ends', () => {
  const xs = [0, 10, 20, 35];
  expect(steppedX(xs, null, -1)).toBe(35);
  expect(steppedX(xs, null, 1)).toBe(35);
  expect(steppedX(xs, 35, -1)).toBe(20);
  expect(steppedX(xs, 20, -1)).toBe(10);
  expect(steppedX(xs, 0, -1)).toBe(0);
  expect(steppedX(xs, 10, 1)).toBe(20);
  expect(steppedX(xs, 35, 1)).toBe(35);
  // A hover between points (another chart's x) steps to the neighbour in that direction.
  expect(steppedX(xs, 12, 1)).toBe(20);
  expect(steppedX(xs, 12, -1)).toBe(10);
  expect(steppedX([], 5, 1)).toBeNull();
});
