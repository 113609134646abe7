// The first-screen gate: a large first read's judging waits until the page says its first chart is drawn, or a bound
// passes with no page drawing; it is judged, with the same alerts, after (#36).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AlertService } from '../../../src/core/alerts/alert-service';
import { dispatch } from '../../../src/core/api/dispatch';
import { AppCore } from '../../../src/core/app/app-core';
import { FirstScreenGate } from '../../../src/core/app/first-screen-gate';
import { createHandlers } from '../../../src/core/app/handlers';
import { openStore } from '../../../src/core/store';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import type { SeriesDelta, SeriesWindow } from '../../../src/shared/domain';
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

const HOST = {
  mode: 'serve',
  version: 't',
  allowOpenFolder: true,
  chooseFolder: async () => null,
  pickExportFolder: async () => null,
} as const;

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

  it('waits until the page says its first chart is drawn, and starts then', async () => {
    const gate = new FirstScreenGate(3000);
    const s = service(gate);
    s.reading('r');
    for (const d of run()) s.feed(d);
    s.read('r');
    // The page takes its time (its grid made, its series answered, then drawn): nothing is judged meanwhile.
    for (let i = 0; i < 20; i++) {
      await vi.advanceTimersByTimeAsync(100);
      await turns(5);
      expect(s.judgingNow()).toBe(true);
      expect(s.list()).toEqual([]);
    }
    // The first chart is drawn: the read is judged and raises its alert.
    gate.drawn();
    await settle(s);
    expect(s.judgingNow()).toBe(false);
    expect(s.list().map((a) => a.rule)).toContain('kl-above-target');
  });

  it('with no page asking, starts at the bound; once open, later first reads start at once', async () => {
    const gate = new FirstScreenGate(3000);
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
    for (const gate of [null, new FirstScreenGate(3000)]) {
      const s = service(gate);
      s.reading('r');
      for (const d of run()) s.feed(d);
      s.read('r');
      gate?.drawn();
      await vi.advanceTimersByTimeAsync(400);
      await settle(s);
      lists.push(s.list().map((a) => `${a.rule}@${a.step}`));
    }
    expect(lists[0]!.length).toBeGreaterThan(0);
    expect(lists[1]).toEqual(lists[0]);
  });

  it("a page asking for the run list late restarts the bound: the gate waits for that page's first chart", async () => {
    const gate = new FirstScreenGate(3000);
    let opened = false;
    void gate.opened().then(() => (opened = true));
    await vi.advanceTimersByTimeAsync(2500);
    gate.pageArrived();
    await vi.advanceTimersByTimeAsync(2900);
    expect(opened).toBe(false);
    gate.drawn();
    await turns(1);
    expect(opened).toBe(true);
    // Once open, a page's ask changes nothing; with no page the bound alone opens it (above).
    gate.pageArrived();
    let again = false;
    void gate.opened().then(() => (again = true));
    await turns(1);
    expect(again).toBe(true);
  });
});

describe('an app holds its first read for the page (#36)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-first-screen-'));
    const runDir = join(dir, 'run1');
    mkdirSync(runDir);
    // 60k points (judged in slices, after the gate): the KL blows up at step 1,000, in the judging's first slices.
    const w = new EventFileWriter(runDir, { wallTime: 1_700_000_000 });
    for (let i = 0; i < 60_000; i++)
      w.scalars(i, [{ tag: 'approx_kl', value: i >= 1000 ? 0.6 : 0.005 }], 'simple', 1_700_000_000 + i);
    w.close();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answering the page's series does not start the judging; the page's app.firstScreen does", async () => {
    const core = new AppCore({ host: HOST, store: openStore({ path: null }) });
    const h = createHandlers(core);
    try {
      await core.open(dir);
      // The page asks its first screen's series (until the whole read is in), then takes 2.5 s (fake; the bound is
      // 3 s) to draw them: nothing is judged. Before, a pause of 300 ms in the series answers started the judging.
      const lastStep = async (): Promise<number | undefined> => {
        const r = await dispatch(h, 'series.get', { run: 'run1', tag: 'approx_kl', pixels: 800 });
        return r.ok ? (r.value as SeriesWindow).steps.at(-1) : undefined;
      };
      for (let i = 0; i < 20_000 && (await lastStep()) !== 59_999; i++) await turns(1);
      expect(await lastStep()).toBe(59_999);
      for (let i = 0; i < 500; i++) {
        await vi.advanceTimersByTimeAsync(5);
        await turns(1);
      }
      expect(core.alerts()).toEqual([]);
      // Drawn: the held read is judged and raises its alert.
      expect(await dispatch(h, 'app.firstScreen', {})).toEqual({ ok: true, value: null });
      for (let i = 0; i < 2000 && !core.alerts().some((a) => a.rule === 'kl-above-target'); i++) {
        await vi.advanceTimersByTimeAsync(5);
        await turns(1);
      }
      expect(core.alerts().map((a) => a.rule)).toContain('kl-above-target');
    } finally {
      vi.useRealTimers();
      await core.dispose();
    }
  });
});
