// A large first read judged in slices (AlertService's sliceFirstReadsOver, on in the app and serve): the event loop
// runs between slices (resting as long as each slice ran), and the alerts are those of judging it at once, with points
// that came meanwhile after it.
import { describe, expect, it, vi } from 'vitest';
import type { AlertService } from '../../../src/core/alerts/alert-service';
import { eachInWriteOrder, writeOrder } from '../../../src/core/alerts/load-order';
import type * as LoadOrder from '../../../src/core/alerts/load-order';
import type { SeriesDelta } from '../../../src/shared/domain';
import { testAlertService } from '../../helpers/alert-service';

// writeOrder counted (its behaviour kept): when the sliced judging builds its order.
vi.mock('../../../src/core/alerts/load-order', async (original) => {
  const m = await original<typeof LoadOrder>();
  return { ...m, writeOrder: vi.fn(m.writeOrder) };
});

const delta = (tag: string, steps: number[], walls: number[], values: number[]): SeriesDelta => ({
  run: 'r',
  tag,
  from: 0,
  steps: Float64Array.from(steps),
  wallTimes: Float64Array.from(walls),
  values: Float64Array.from(values),
});

const service = (sliced: boolean): AlertService =>
  testAlertService({
    ...(sliced ? { sliceFirstReadsOver: 1000, judgeSliceMs: 0 } : {}),
  });

/** A PPO run's KL and entropy, 3000 steps each, healthy (KL blows up after `blowUpAt` when given). */
function run(n: number, blowUpAt = Infinity): SeriesDelta[] {
  const steps = Array.from({ length: n }, (_, i) => i);
  const walls = steps.map((i) => 1_699_990_000 + i * 0.01);
  return [
    delta(
      'train/approx_kl',
      steps,
      walls,
      steps.map((i) => (i >= blowUpAt ? 0.6 : 0.005 + (i % 7) * 1e-4)),
    ),
    delta(
      'train/entropy',
      steps,
      walls,
      steps.map((i) => 0.55 - (i % 5) * 1e-3),
    ),
  ];
}

const judged = async (s: AlertService): Promise<void> => {
  while (s.judgingNow()) await new Promise((r) => setImmediate(r));
};

describe('a first read judged in slices', () => {
  it('gives the event loop turns while it is judged and raises what judging it at once raises', async () => {
    const data = run(3000, 2000);
    const atOnce = service(false);
    atOnce.reading('r');
    for (const d of data) atOnce.feed(d);
    atOnce.read('r');
    expect(atOnce.list().length).toBeGreaterThan(0);

    const sliced = service(true);
    sliced.reading('r');
    for (const d of data) sliced.feed(d);
    sliced.read('r');
    // Not judged yet: read returned at once.
    expect(sliced.judgingNow()).toBe(true);
    let turns = 0;
    while (sliced.judgingNow()) {
      await new Promise((r) => setImmediate(r));
      turns++;
    }
    expect(turns).toBeGreaterThan(1);
    const strip = (s: AlertService) =>
      s.list().map(({ id, rule, step, tags, active, clearedStep }) => ({
        id,
        rule,
        step,
        tags,
        active,
        clearedStep,
      }));
    expect(strip(sliced)).toEqual(strip(atOnce));
  });

  it('rests after each slice as long as it ran: turns of the loop alone do not judge it, time passing does (#36)', async () => {
    // Background work on a machine whose cores a trainer keeps busy: at most half a core, the rest left to others.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const s = service(true);
      s.reading('r');
      for (const d of run(3000)) s.feed(d);
      s.read('r');
      for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
      expect(s.judgingNow()).toBe(true);
      let rests = 0;
      while (s.judgingNow() && rests < 1000) {
        await vi.advanceTimersToNextTimerAsync();
        await new Promise((r) => setImmediate(r));
        rests++;
      }
      expect(s.judgingNow()).toBe(false);
      expect(rests).toBeGreaterThan(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('judges points that arrive while it is judged after the first read, as at once', async () => {
    const data = run(3000);
    const steps = [3000, 3001, 3002, 3003, 3004, 3005];
    const walls = steps.map((i) => 1_699_990_000 + i * 0.01);
    const late = [
      delta(
        'train/approx_kl',
        steps,
        walls,
        steps.map(() => 0.9),
      ),
    ];
    const ids: string[][] = [];
    for (const sliced of [false, true]) {
      const s = service(sliced);
      s.reading('r');
      for (const d of data) s.feed(d);
      s.read('r');
      for (const d of late) s.feed(d);
      await judged(s);
      ids.push(s.list().map((a) => `${a.rule}@${a.step}`));
    }
    expect(ids[0]!.length).toBeGreaterThan(0);
    expect(ids[1]).toEqual(ids[0]);
  });

  it('writeOrder, a few points at a time, hands over the points in the order eachInWriteOrder gives', () => {
    let seed = 7;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    // One timeline (the fast path), tags by wall time, and some points without wall times (the heap's own steps).
    const cases: SeriesDelta[][] = [
      run(50),
      ['a', 'b', 'c', 'a'].map((t, k) => {
        const steps = Array.from({ length: 30 }, (_, i) => i * 3 + k);
        return delta(
          t,
          steps,
          steps.map(() => Math.floor(rnd() * 40)).sort((x, y) => x - y),
          steps.map(rnd),
        );
      }),
      ['a', 'b'].map((t) => {
        const steps = Array.from({ length: 30 }, (_, i) => i);
        return delta(
          t,
          steps,
          steps.map((i) => (rnd() < 0.3 ? NaN : i + rnd())),
          steps.map(rnd),
        );
      }),
    ];
    for (const held of cases) {
      const whole: string[] = [];
      eachInWriteOrder(held, (tag, step, wall, value) => whole.push(`${tag}${step}@${wall}=${value}`));
      const sliced: string[] = [];
      const next = writeOrder(held);
      let calls = 0;
      while (next((tag, step, wall, value) => sliced.push(`${tag}${step}@${wall}=${value}`), 7)) calls++;
      expect(calls).toBeGreaterThan(1);
      expect(sliced).toEqual(whole);
    }
  });

  it("builds the read's write order once the judging may start, not at the read's end beside the page's first chart (#36)", async () => {
    let open = (): void => {};
    const gate = new Promise<void>((r) => (open = r));
    const s = testAlertService({
      sliceFirstReadsOver: 1000,
      judgeSliceMs: 0,
      judgeFirstReadsAfter: () => gate,
    });
    s.reading('r');
    for (const d of run(3000, 2000)) s.feed(d);
    vi.mocked(writeOrder).mockClear();
    s.read('r');
    await new Promise((r) => setTimeout(r, 20));
    // Before: the order of the 6000 held points was built here, in read(), before the gate.
    expect(writeOrder).not.toHaveBeenCalled();
    expect(s.list()).toEqual([]);
    open();
    await judged(s);
    expect(writeOrder).toHaveBeenCalledTimes(1);
    expect(s.list().length).toBeGreaterThan(0);
  });
});
