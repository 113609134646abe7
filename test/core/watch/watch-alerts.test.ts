// `rlwatch watch`'s alert lines: finished runs clear their stalled alert, system samples reach the rules, user thresholds apply.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { savedSettings } from '../../../src/cli/watch-command';
import { openAppStore } from '../../../src/core/app/app-store';
import { SETTINGS_KEY } from '../../../src/core/app/settings';
import type { RunInfo, SeriesDelta, Settings } from '../../../src/shared/domain';
import { DEFAULT_SETTINGS } from '../../../src/shared/domain';
import type { SystemSnapshot } from '../../../src/shared/system-types';
import { createWatchAlerts } from '../../../src/core/watch/watch-alerts';
import { exitsOnCritical, type AlertLine, type WatchLine } from '../../../src/core/watch/watch-lines';
import { WatchSession } from '../../../src/core/watch/watch-session';
import type { Workspace } from '../../../src/core/workspace/workspace';

type Listener = (payload: unknown) => void;

/** The part of a Workspace a watch session listens to, driven by hand. */
class FakeWorkspace {
  private readonly listeners = new Map<string, Set<Listener>>();
  on(event: string, l: Listener): () => void {
    const set = this.listeners.get(event) ?? new Set<Listener>();
    this.listeners.set(event, set);
    set.add(l);
    return () => void set.delete(l);
  }
  /** A delta goes out as `series.appended` and as a read of its own (`series.read`), as the workspace sends both. */
  emit(event: string, payload: unknown): void {
    for (const l of this.listeners.get(event) ?? []) l(payload);
    if (event === 'series.appended') {
      const d = payload as SeriesDelta;
      for (const l of this.listeners.get('series.read') ?? []) l({ run: d.run, deltas: [d] });
    }
  }
  progressOf(): null {
    return null;
  }
  configOf(): null {
    return null;
  }
}

const delta = (run: string, tag: string, steps: number[], values: number[]): SeriesDelta => ({
  run,
  tag,
  from: 0,
  steps: Float64Array.from(steps),
  wallTimes: Float64Array.from(steps, (s) => 1000 + s),
  values: Float64Array.from(values),
});

const runInfo = (run: string, fraction: number | null): RunInfo => ({
  run,
  sources: [],
  tags: [],
  points: 0,
  lastEventAt: null,
  fileWrittenAt: null,
  progress: fraction === null ? null : { fraction, etaSeconds: null },
  loaded: true,
  restarts: 0,
  sessions: [],
  worstAlert: null,
  stalled: false,
});

function gpuSnapshot(t: number, usedPct: number): SystemSnapshot {
  return {
    t,
    cpuPct: 10,
    memPct: 20,
    gpus: [{ index: 0, utilizationGpuPct: 90, memoryUsedMiB: usedPct * 100, memoryTotalMiB: 10_000 }],
  } as unknown as SystemSnapshot;
}

interface Rig {
  ws: FakeWorkspace;
  clock: { now: number };
  alerts: () => AlertLine[];
  statuses: () => string[];
  snapshot: (s: SystemSnapshot) => void;
  tick: () => void;
  close: () => void;
}

/** A watch session over a hand-driven workspace, with the alert pipeline `rlwatch watch` uses. */
function rig(settings: Settings = DEFAULT_SETTINGS): Rig {
  const ws = new FakeWorkspace();
  const clock = { now: 1_000_000 };
  const lines: WatchLine[] = [];
  let snapshotListener: ((s: SystemSnapshot) => void) | null = null;
  const alerts = createWatchAlerts({
    root: '/watched',
    configOf: () => null,
    runs: () => ['run1'],
    settings,
    clock: () => clock.now,
  });
  const session = new WatchSession({
    workspace: ws as unknown as Workspace,
    emit: (l) => lines.push(l),
    now: () => clock.now,
    alerts,
    system: { subscribe: (l) => ((snapshotListener = l), () => (snapshotListener = null)) },
    tickMs: 3_600_000,
  });
  return {
    ws,
    clock,
    alerts: () => lines.filter((l): l is AlertLine => l.type === 'alert'),
    statuses: () => lines.flatMap((l) => (l.type === 'run' ? [`${l.run} ${l.state}`] : [])),
    snapshot: (s) => snapshotListener?.(s),
    tick: () => {
      for (const l of alerts.tick(clock.now)) lines.push(l);
    },
    close: () => session.close(),
  };
}

describe('watch alert lines', () => {
  test('a killed trainer: the run line says stalled within 30 s, the alert follows at 10 min, data makes it live', () => {
    const r = rig();
    r.ws.emit('runs.changed', [runInfo('run1', null)]);
    for (let i = 0; i < 10; i++) {
      r.clock.now += 2000;
      r.ws.emit('series.appended', delta('run1', 'loss', [i], [1]));
    }
    r.clock.now += 20_000;
    r.tick();
    expect(r.statuses()).toEqual(['run1 discovered']);
    r.clock.now += 8_000;
    r.tick();
    expect(r.statuses()).toEqual(['run1 discovered', 'run1 stalled']);
    expect(r.alerts()).toEqual([]);
    r.clock.now += 100_000;
    r.tick();
    // Silence alone cannot tell an end from a crash: the alert waits for 10 minutes of it.
    expect(r.alerts()).toEqual([]);
    r.clock.now += 480_000;
    r.tick();
    expect(r.alerts().map((a) => [a.rule, a.state, a.step, a.value])).toEqual([
      ['stalled-run', 'raised', 9, 608],
    ]);
    r.ws.emit('series.appended', delta('run1', 'loss', [10], [1]));
    expect(r.statuses()).toEqual(['run1 discovered', 'run1 stalled', 'run1 live']);
    expect(r.alerts().map((a) => [a.rule, a.state])).toEqual([
      ['stalled-run', 'raised'],
      ['stalled-run', 'cleared'],
    ]);
    // The cleared line says what cleared it, not the firing text again.
    expect(r.alerts()[1]!.message).toBe('Cleared: the run wrote again (step 10).');
    r.close();
  });

  test('a stalled W&B run whose log then says it ended (no progress file) prints the stalled alert cleared', () => {
    const r = rig();
    r.ws.emit('runs.changed', [runInfo('run1', null)]);
    for (let i = 0; i < 3; i++) {
      r.ws.emit('series.appended', delta('run1', 'loss', [i], [1]));
      r.clock.now += 2000;
    }
    r.clock.now += 700_000;
    r.tick();
    expect(r.alerts().map((a) => [a.rule, a.state])).toEqual([['stalled-run', 'raised']]);
    r.ws.emit('runs.changed', [{ ...runInfo('run1', null), ended: 'finished' }]);
    expect(r.alerts().map((a) => [a.rule, a.state])).toEqual([
      ['stalled-run', 'raised'],
      ['stalled-run', 'cleared'],
    ]);
    expect(r.alerts()[1]!.message).toBe('Cleared: the run finished.');
    r.close();
  });

  test('a run silent at half its planned end prints exited before its end, cleared when it finishes', () => {
    const r = rig();
    r.ws.emit('runs.changed', [runInfo('run1', 0.5)]);
    for (let i = 0; i < 3; i++) {
      r.ws.emit('series.appended', delta('run1', 'loss', [i], [1]));
      r.clock.now += 2000;
    }
    r.clock.now += 31_000;
    r.tick();
    expect(r.alerts().map((a) => [a.rule, a.severity, a.state])).toEqual([
      ['trainer-exited', 'critical', 'raised'],
    ]);
    expect(r.alerts()[0]!.message).toMatch(/^exited before its end: stopped writing at 50 % of the run/);
    // One line per event: the alert says it exited; no second `run` line says so.
    expect(r.statuses()).toEqual(['run1 discovered']);
    r.ws.emit('runs.changed', [runInfo('run1', 1)]);
    expect(r.alerts().map((a) => [a.rule, a.state])).toEqual([
      ['trainer-exited', 'raised'],
      ['trainer-exited', 'cleared'],
    ]);
    r.close();
  });

  test('system samples reach the rules: a full GPU memory is a critical alert of the machine', () => {
    const r = rig();
    for (let i = 0; i < 4; i++) r.snapshot(gpuSnapshot(r.clock.now + i * 1000, 99.5));
    const critical = r.alerts().filter((a) => a.severity === 'critical');
    expect(critical).toHaveLength(1);
    expect(critical[0]).toMatchObject({ run: '(this machine)', rule: 'gpu-memory-high', state: 'raised' });
    r.close();
  });

  test("the user's saved thresholds apply (target_kl 0.01 makes KL 0.015 an alert)", () => {
    const quiet = rig();
    quiet.ws.emit(
      'series.appended',
      delta('run1', 'approx_kl', [0, 1, 2, 3, 4], [0.015, 0.015, 0.015, 0.015, 0.015]),
    );
    expect(quiet.alerts()).toEqual([]);
    quiet.close();

    const strict = rig({ ...DEFAULT_SETTINGS, thresholds: { target_kl: 0.01 } });
    strict.ws.emit(
      'series.appended',
      delta('run1', 'approx_kl', [0, 1, 2, 3, 4], [0.015, 0.015, 0.015, 0.015, 0.015]),
    );
    expect(strict.alerts().map((a) => [a.rule, a.severity, a.state])).toEqual([
      ['kl-above-target', 'warning', 'raised'],
    ]);
    strict.close();
  });
});

describe('watch --exit-on critical and history', () => {
  test('a critical raised on the first read of a run last written days ago is history: --exit-on does not exit on it', () => {
    const now = 1_700_000_000_000;
    const alerts = createWatchAlerts({
      root: '/watched',
      configOf: () => null,
      runs: () => ['old', 'new'],
      writtenAt: (run) => (run === 'old' ? now - 3 * 24 * 3600_000 : now - 1000),
      settings: DEFAULT_SETTINGS,
      clock: () => now,
    });
    const lines: WatchLine[] = [];
    for (const run of ['old', 'new']) {
      lines.push(...alerts.reading(run));
      lines.push(
        ...alerts.feed(delta(run, 'train/value_loss', [1, 2, 3, 4], [1, 1, Number.NaN, Number.NaN])),
      );
      lines.push(...alerts.read(run));
    }
    const raised = lines.filter((l): l is AlertLine => l.type === 'alert' && l.state === 'raised');
    expect(raised.map((l) => `${l.run} ${l.rule} ${l.severity} ${l.history ?? 'now'}`)).toEqual([
      'old non-finite critical true',
      'new non-finite critical now',
    ]);
    expect(lines.filter(exitsOnCritical).map((l) => (l as AlertLine).run)).toEqual(['new']);
  });
});

describe('watch alerts per delta', () => {
  test('a delta that brings no line answers the one shared empty list (no array and set per delta); a raise still comes', () => {
    const now = 1_700_000_000_000;
    const alerts = createWatchAlerts({
      root: '/watched',
      configOf: () => null,
      runs: () => ['r'],
      writtenAt: () => now - 1000,
      settings: DEFAULT_SETTINGS,
      clock: () => now,
    });
    const quiet = [1, 2, 3].map((s) => alerts.feed(delta('r', 'train/value_loss', [s], [1])));
    expect(quiet[0]).toEqual([]);
    expect(quiet[1]).toBe(quiet[0]);
    expect(quiet[2]).toBe(quiet[0]);
    const raised = alerts.feed(delta('r', 'train/value_loss', [4], [Number.NaN]));
    expect(raised.map((l) => (l.type === 'alert' ? `${l.rule} ${l.state}` : l.type))).toEqual([
      'non-finite raised',
    ]);
    expect(alerts.feed(delta('r', 'train/value_loss', [5], [Number.NaN]))).toBe(quiet[0]);
  });
});

describe("watch reads the app's saved settings", () => {
  test('a damaged database is left exactly as it is (never moved aside or migrated by watch)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlwatch-watch-damaged-'));
    try {
      const db = join(dir, 'rlwatch.db');
      writeFileSync(db, 'not a database, but the app may still rescue it');
      expect(savedSettings({ RLWATCH_STORE: db })).toEqual(DEFAULT_SETTINGS);
      expect(readdirSync(dir)).toEqual(['rlwatch.db']);
      expect(readFileSync(db, 'utf8')).toBe('not a database, but the app may still rescue it');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('from the database RLWATCH_STORE names, without creating one that is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlwatch-watch-settings-'));
    try {
      const db = join(dir, 'rlwatch.db');
      expect(savedSettings({ RLWATCH_STORE: db })).toEqual(DEFAULT_SETTINGS);
      expect(existsSync(db)).toBe(false);
      const store = openAppStore({ path: db });
      store.setSetting(SETTINGS_KEY, { thresholds: { target_kl: 0.01 }, stalledAfterMinutes: 3 });
      store.close();
      expect(savedSettings({ RLWATCH_STORE: db })).toMatchObject({
        thresholds: { target_kl: 0.01 },
        stalledAfterMinutes: 3,
      });
      expect(savedSettings({ RLWATCH_STORE: 'memory' })).toEqual(DEFAULT_SETTINGS);
      // The database after watch read it: the same bytes, no file added (no -wal/-shm, no .corrupt-*).
      const before = readFileSync(db);
      const files = readdirSync(dir).sort();
      savedSettings({ RLWATCH_STORE: db });
      expect(readFileSync(db).equals(before)).toBe(true);
      expect(readdirSync(dir).sort()).toEqual(files);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
