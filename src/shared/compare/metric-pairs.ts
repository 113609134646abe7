// Any metric as the x axis: two series of a run joined by step (reward against KL), points in step order.

import { interpolateAt, type StepSeries } from './group-stats';

export interface MetricPairs {
  /** The x metric's value, the y metric's value and the step of each point, in step order. */
  x: Float64Array;
  y: Float64Array;
  steps: Float64Array;
  /** How x was found at y's steps: logged at the same step, or interpolated between its neighbours. */
  joined: 'same-step' | 'interpolated';
}

/**
 * Joins `ys` to `xs` at y's steps. When most of y's steps (≥ half) are also x's, only those pairs are kept
 * (`same-step`: every point is a logged pair); otherwise x is interpolated linearly at y's steps inside x's range
 * (two loggers at different cadences). Non-finite values are left out.
 */
export function pairByStep(xs: StepSeries, ys: StepSeries): MetricPairs {
  const xAt = new Map<number, number>();
  for (let i = 0; i < xs.steps.length; i++) xAt.set(xs.steps[i]!, xs.values[i]!);
  let same = 0;
  for (let i = 0; i < ys.steps.length; i++) if (xAt.has(ys.steps[i]!)) same++;
  const exact = ys.steps.length > 0 && same * 2 >= ys.steps.length;
  const px: number[] = [];
  const py: number[] = [];
  const ps: number[] = [];
  for (let i = 0; i < ys.steps.length; i++) {
    const step = ys.steps[i]!;
    const x = exact ? (xAt.get(step) ?? NaN) : interpolateAt(xs, step);
    const y = ys.values[i]!;
    if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
    px.push(x);
    py.push(y);
    ps.push(step);
  }
  return {
    x: Float64Array.from(px),
    y: Float64Array.from(py),
    steps: Float64Array.from(ps),
    joined: exact ? 'same-step' : 'interpolated',
  };
}
