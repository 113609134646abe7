// The first-screen gate: a large first read's judging waits until the page has asked for its first screen's series
// (then paused), or a bound passes with no page; it is judged, with the same alerts, after (#36).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AlertService } from '../../../src/core/alerts/alert-service';
import { FirstScreenGate } from '../../../src/core/app/first-screen-gate';
import type { SeriesDelta } from '../../../src/shared/domain';
import { testAlertService } from '../../helpers/alert-service';

/** A KL that blows up at step 2000 of 3000: judged, it raises an alert. */
function run(): SeriesDelta[] {
  const steps = Array.from({ length: 3000 }, (_, i) => i);
  const arr = (f: (i: number) => number): Float64Array => Float64Array.from(steps.map(f));
  return [
    {
      run: 'r',
      tag: 'train/approx_kl',
      from: 0,
      steps: arr((i) => i),
      wallTimes: arr((i) => 1_699_990_000 + i * 0.01),
      values: arr((i) => (i >= 2000 ? 0.6 : 0.005 + (i % 7) * 1e-4)),
    },
  ];
}

const service = (gate: FirstScreenGate | null): AlertService =>
  testAlertService({
    sliceFirstReadsOver: 1000,
    judgeSliceMs: 0,
    ...(gate ? { judgeFirstReadsAfter: () => gate.opened() } : {}),
  });

const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

/** Lets time pass (fake timers) and the loop turn until nothing is judged any more. */
async function settle(s: AlertService): Promise<void> {
  for (let i = 0; i < 2000 && s.judgingNow(); i++) {
    await vi.advanceTimersByTimeAsync(5);
    await turns(1);
  }
}

describe('judging a first read after the first screen (#36)', () => {
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
  afterEach(() => void vi.useRealTimers());

  it('waits while the page is asking for its series, and starts once they pause', async () => {
    const gate = new FirstScreenGate(300, 3000);
    const s = service(gate);
    s.reading('r');
    for (const d of run()) s.feed(d);
    s.read('r');
    // The page asks for a series every 100 ms for a second: nothing is judged meanwhile, however long it runs.
    for (let i = 0; i < 10; i++) {
      gate.seriesAnswered();
      await vi.advanceTimersByTimeAsync(100);
      await turns(5);
      expect(s.judgingNow()).toBe(true);
      expect(s.list()).toEqual([]);
    }
    // The page's requests pause: the read is judged and raises its alert.
    await vi.advanceTimersByTimeAsync(300);
    await settle(s);
    expect(s.judgingNow()).toBe(false);
    expect(s.list().map((a) => a.rule)).toContain('kl-above-target');
  });

  it('with no page asking, starts at the bound; once open, later first reads start at once', async () => {
    const gate = new FirstScreenGate(300, 3000);
    const s = service(gate);
    s.reading('r');
    for (const d of run()) s.feed(d);
    s.read('r');
    await vi.advanceTimersByTimeAsync(2900);
    await turns(5);
    expect(s.list()).toEqual([]);
    await vi.advanceTimersByTimeAsync(100);
    await settle(s);
    expect(s.list().length).toBeGreaterThan(0);
    let opened = false;
    void gate.opened().then(() => (opened = true));
    await turns(1);
    expect(opened).toBe(true);
  });

  it('raises what judging without the gate raises', async () => {
    const lists: string[][] = [];
    for (const gate of [null, new FirstScreenGate(300, 3000)]) {
      const s = service(gate);
      s.reading('r');
      for (const d of run()) s.feed(d);
      s.read('r');
      gate?.seriesAnswered();
      await vi.advanceTimersByTimeAsync(400);
      await settle(s);
      lists.push(s.list().map((a) => `${a.rule}@${a.step}`));
    }
    expect(lists[0]!.length).toBeGreaterThan(0);
    expect(lists[1]).toEqual(lists[0]);
  });

  it("a page asking for the run list late restarts the bound: the gate waits for that page's series", async () => {
    const gate = new FirstScreenGate(300, 3000);
    let opened = false;
    void gate.opened().then(() => (opened = true));
    await vi.advanceTimersByTimeAsync(2500);
    gate.pageArrived();
    await vi.advanceTimersByTimeAsync(2900);
    expect(opened).toBe(false);
    gate.seriesAnswered();
    await vi.advanceTimersByTimeAsync(300);
    expect(opened).toBe(true);
    // Once open, a page's ask changes nothing; with no page the bound alone opens it (above).
    gate.pageArrived();
    let again = false;
    void gate.opened().then(() => (again = true));
    await turns(1);
    expect(again).toBe(true);
  });
});
