// Marker placement: alerts filtered to the chart, steps converted to the axis mode, restarts, focus.

import { describe, expect, test } from 'vitest';
import type { AlertInfo } from '../../../src/shared/domain';
import { alertsFor, buildMarkers, stepToX, type StepColumns } from '../../../src/shared/charts/markers';

const cols: StepColumns = {
  run: 'a',
  steps: [0, 10, 20, 30],
  walls: [1000, 1005, 1010, 1015],
  origin: 1000,
  restarts: [{ step: 20, wallTime: 1010 }],
};

function alert(over: Partial<AlertInfo>): AlertInfo {
  return {
    tags: [],
    wallTime: null,
    statistic: null,
    clearedWallTime: null,
    id: 'x',
    rule: 'kl-above-target',
    severity: 'warning',
    run: 'a',
    tag: 'approx_kl',
    step: 10,
    value: 0.05,
    message: 'KL high',
    advice: null,
    raisedAt: 0,
    acknowledged: false,
    snoozedUntil: null,
    active: true,
    clearedAt: null,
    clearedStep: null,
    ...over,
  };
}

describe('markers', () => {
  test('alerts for this tag on the drawn runs only', () => {
    const all = [alert({}), alert({ run: 'b' }), alert({ tag: 'entropy' }), alert({ tag: null })];
    expect(alertsFor(all, 'approx_kl', ['a'])).toEqual([all[0]]);
    expect(alertsFor(all, 'approx_kl', ['a', 'b'])).toHaveLength(2);
  });

  test('a step becomes the wall time of the nearest held point in time modes', () => {
    expect(stepToX(cols, 12, 'step')).toBe(12);
    expect(stepToX(cols, 12, 'wall')).toBe(1005);
    expect(stepToX(cols, 17, 'relative')).toBe(10);
    expect(stepToX(cols, 31, 'wall')).toBeNaN();
    expect(stepToX({ ...cols, steps: [], walls: [] }, 5, 'wall')).toBeNaN();
  });

  test('restarts, alerts and the focused step become markers in axis units', () => {
    const m = buildMarkers([cols], [alert({ severity: 'critical', step: 30 })], 'relative', 10);
    expect(m.map((k) => [k.kind, k.x])).toEqual([
      ['restart', 10],
      ['alert', 15],
      ['focus', 5],
    ]);
    expect(m[1]!.severity).toBe('critical');
  });

  test("a composed chart's tags of one run mark its restart once; another run's restart at another place is its own", () => {
    const other: StepColumns = { ...cols, run: 'b', restarts: [{ step: 10, wallTime: 1005 }] };
    const m = buildMarkers([cols, { ...cols }, other], [], 'step', null);
    expect(m.map((k) => [k.kind, k.x])).toEqual([
      ['restart', 20],
      ['restart', 10],
    ]);
    // On a time axis each tag's wall times differ by a hair: still one mark.
    const hair: StepColumns = {
      ...cols,
      walls: cols.walls.map((w) => w + 0.2),
      restarts: [{ step: 20, wallTime: 1010.2 }],
    };
    expect(buildMarkers([cols, hair], [], 'wall', null).filter((k) => k.kind === 'restart')).toHaveLength(1);
  });
});
