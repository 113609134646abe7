// Settings changed while the saved ones load win over the load's answer: a click in the first seconds is kept.

import { expect, test } from 'vitest';
import { EditsDuringLoad } from '../../../src/renderer/src/lib/edits-during-load';

interface S {
  xAxis: 'step' | 'relative' | 'wall';
  smoothing: number;
}

test('an edit made while a load is in flight is laid over what the load returns; the rest comes from the load', () => {
  const d = new EditsDuringLoad<S>();
  const edits = d.begin();
  d.edited({ xAxis: 'relative' });
  expect(d.settle(edits, { xAxis: 'step', smoothing: 0.8 })).toEqual({ xAxis: 'relative', smoothing: 0.8 });
});

test('edits made before a load began, or after it settled, are not laid over it', () => {
  const d = new EditsDuringLoad<S>();
  d.edited({ smoothing: 0.1 });
  const edits = d.begin();
  expect(d.settle(edits, { xAxis: 'wall', smoothing: 0.5 })).toEqual({ xAxis: 'wall', smoothing: 0.5 });
  d.edited({ xAxis: 'relative' });
  expect(d.settle(d.begin(), { xAxis: 'step', smoothing: 0.5 })).toEqual({ xAxis: 'step', smoothing: 0.5 });
});

test('two loads in flight (a reconnect during the first) each keep the edits made while they were', () => {
  const d = new EditsDuringLoad<S>();
  const first = d.begin();
  d.edited({ xAxis: 'relative' });
  const second = d.begin();
  d.edited({ smoothing: 0.3 });
  expect(d.settle(first, { xAxis: 'step', smoothing: 0.9 })).toEqual({ xAxis: 'relative', smoothing: 0.3 });
  expect(d.settle(second, { xAxis: 'step', smoothing: 0.9 })).toEqual({ xAxis: 'step', smoothing: 0.3 });
});
