// runs.changed's pace: at once on structure, at the throttle's gap for a load, at most once a second for live appends.
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { THROTTLE_MS } from '../../../src/core/workspace/load-progress';
import { LIVE_GAP_MS, RunsChangedPacer } from '../../../src/core/workspace/runs-changed';

beforeEach(() => {
  vi.useFakeTimers({ now: 1_700_000_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A pacer whose every runs.changed is counted, having just sent one. */
function pacer(): { p: RunsChangedPacer; fired: () => number } {
  let n = 0;
  const p = new RunsChangedPacer(() => void n++);
  p.changed(true);
  return { p, fired: () => n - 1 };
}

test('live appends send runs.changed at most once a second: 50 live runs logging every second make one list, not ten', () => {
  const { p, fired } = pacer();
  // Every run's append announced as it is read: 50 over one second.
  for (let i = 0; i < 50; i++) {
    vi.advanceTimersByTime(LIVE_GAP_MS / 50);
    p.changed(false, true);
  }
  expect(fired()).toBe(1);
  vi.advanceTimersByTime(LIVE_GAP_MS - 1);
  expect(fired()).toBe(1);
  vi.advanceTimersByTime(1);
  expect(fired()).toBe(2);
});

test('a load, an error or a structure change is not held back to the live pace: it brings a waiting update forward', () => {
  const { p, fired } = pacer();
  vi.advanceTimersByTime(10);
  p.changed(false, true);
  vi.advanceTimersByTime(10);
  // A run's first read done (the throttle's pace).
  p.changed(false, false);
  vi.advanceTimersByTime(THROTTLE_MS - 20);
  expect(fired()).toBe(1);
  p.changed(false, true);
  vi.advanceTimersByTime(THROTTLE_MS);
  expect(fired()).toBe(1);
  p.changed(true, true);
  expect(fired()).toBe(2);
  vi.advanceTimersByTime(2 * LIVE_GAP_MS);
  expect(fired()).toBe(2);
});
