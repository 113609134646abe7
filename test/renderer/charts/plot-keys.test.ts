// Plot keys: + / − zoom by 1.5×, arrows pan by 15 % of the width, 0 / Home reset, other keys pass through.

import { expect, test } from 'vitest';
import { plotKeyAction } from '../../../src/renderer/src/charts/plot-keys';

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
