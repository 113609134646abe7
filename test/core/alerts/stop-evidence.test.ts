// A silent run judged on evidence (issue 34 §1): planned end, siblings writing, no evidence, opened after its stop, history.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AlertService } from '../../../src/core/alerts/alert-service';
import { isHistory, StopFacts } from '../../../src/core/alerts/stop-facts';
import { plannedTotal, RunStopTracker } from '../../../src/core/health/stop-evidence';
import type { RunInfo } from '../../../src/shared/domain';
import { runActivity } from '../../../src/shared/run-status';
import type { SystemSnapshot } from '../../../src/shared/system-types';
import { testAlertService } from '../../helpers/alert-service';

const T0 = 1_700_000_000_000;

const info = (run: string, over: Partial<RunInfo> = {}): RunInfo => ({
  run,
  sources: [],
  tags: [],
  points: 0,
  lastEventAt: null,
  fileWrittenAt: null,
  progress: null,
  loaded: true,
  restarts: 0,
  sessions: [],
  worstAlert: null,
  stalled: false,
  ended: null,
  ...over,
});

interface Rig {
  clock: { now: number };
  service: AlertService;
  raised: () => string[];
  /** One SB3-style row (no wall time: SB3's progress.csv logs none) at `step`. */
  write: (run: string, step: number, wall?: number) => void;
  activity: (run: string) => string;
}

function rig(configs: Record<string, Record<string, unknown>> = {}, root = '/runs'): Rig {
  const clock = { now: T0 };
  const service = testAlertService({
    root: () => root,
    runs: () => Object.keys(configs),
    configOf: (run) => configs[run] ?? null,
    clock: () => clock.now,
  });
  const raised: string[] = [];
  service.onBatch((b) => {
    for (const t of b.transitions)
      if (t.kind === 'raised') raised.push(`${t.alert.run} ${t.alert.rule} ${t.alert.severity}`);
  });
  return {
    clock,
    service,
    raised: () => raised,
    write: (run, step, wall = Number.NaN) =>
      service.feed({
        run,
        tag: 'train/value_loss',
        from: 0,
        steps: Float64Array.of(step),
        wallTimes: Float64Array.of(wall),
        values: Float64Array.of(1),
      }),
    activity: (run) => runActivity(info(run, service.overlayFor(run)), clock.now),
  };
}

const seedConfig = (seed: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  env: 'CartPole-v1',
  learning_rate: 3e-4,
  seed,
  ...extra,
});

describe('a silent run before its planned end', () => {
  it('is exited before its end (critical) at max(2.5 × its interval, 25 s), naming its planned total', () => {
    const r = rig({ a: seedConfig(1, { total_timesteps: 100_000 }) });
    r.service.onRuns([info('a')]);
    for (let i = 1; i <= 10; i++) {
      r.write('a', i * 2048);
      r.clock.now += 2000;
    }
    r.clock.now += 20_000;
    r.service.tick();
    expect(r.raised()).toEqual([]);
    expect(r.activity('a')).toBe('idle');
    r.clock.now += 4_000;
    r.service.tick();
    expect(r.raised()).toEqual(['a trainer-exited critical']);
    const alert = r.service.activeAlerts('a')[0]!;
    expect(alert.message).toMatch(
      /^exited before its end: stopped writing at step 20,?480 of 100,?000 \(total_timesteps\)/,
    );
    expect(r.activity('a')).toBe('exited');
    expect(r.service.overlayFor('a').stop?.reason).toBe(alert.message);
  });

  it('silent before its end while its trainer process lives: hung (stalled), a critical stalled-run', () => {
    const r = rig({ a: seedConfig(1, { total_timesteps: 100_000 }) });
    r.service.onRuns([info('a')]);
    for (let i = 1; i <= 10; i++) {
      r.write('a', i * 2048);
      r.service.onSnapshot({
        t: r.clock.now,
        cpuPct: 1,
        memPct: 10,
        gpus: null,
        trainingProcesses: [{ run: 'a', processes: [], cpuPct: 99, rssMiB: 100 }],
        processExits: [],
      } as unknown as SystemSnapshot);
      r.clock.now += 2000;
    }
    r.clock.now += 30_000;
    r.service.tick();
    expect(r.raised()).toEqual(['a stalled-run critical']);
    expect(r.service.activeAlerts('a')[0]!.message).toMatch(
      /^hung before its end: .* while its trainer process is alive$/,
    );
    expect(r.activity('a')).toBe('stalled');
  });

  it('at its planned total (within two logging increments) it ended: finished, no alert', () => {
    const r = rig({ a: seedConfig(1, { total_timesteps: 20_000 }) });
    r.service.onRuns([info('a')]);
    for (let i = 1; i <= 9; i++) {
      r.write('a', i * 2048);
      r.clock.now += 2000;
    }
    r.clock.now += 20 * 60_000;
    r.service.tick();
    expect(r.raised()).toEqual([]);
    expect(r.activity('a')).toBe('finished');
  });

  it('an epoch total (HF num_train_epochs) is compared with the logged epoch', () => {
    const r = rig({ a: { num_train_epochs: 3, max_steps: -1, seed: 1 } });
    r.service.onRuns([info('a')]);
    for (let i = 1; i <= 10; i++) {
      r.service.feed({
        run: 'a',
        tag: 'train/epoch',
        from: 0,
        steps: Float64Array.of(i * 10),
        wallTimes: Float64Array.of(Number.NaN),
        values: Float64Array.of(i * 0.12),
      });
      r.clock.now += 2000;
    }
    r.clock.now += 30_000;
    r.service.tick();
    expect(r.raised()).toEqual(['a trainer-exited critical']);
    expect(r.service.activeAlerts('a')[0]!.message).toMatch(
      /stopped writing at epoch 1\.2 of 3 \(num_train_epochs\)/,
    );
  });

  it('plannedTotal reads steps before epochs and ignores non-positive totals (HF max_steps -1)', () => {
    expect(plannedTotal({ training: { max_steps: -1, num_train_epochs: 3 } })).toMatchObject({
      unit: 'epochs',
      total: 3,
    });
    expect(plannedTotal({ total_timesteps: 5e5 })).toMatchObject({ unit: 'steps', total: 5e5 });
    expect(plannedTotal({ lr: 1 })).toBeNull();
  });
});

describe('a silent run while its seed group writes', () => {
  const configs = { s1: seedConfig(1), s2: seedConfig(2), s3: seedConfig(3) };

  it('is exited, naming the siblings; the siblings stay live', () => {
    const r = rig(configs);
    r.service.onRuns(Object.keys(configs).map((run) => info(run)));
    let step = 0;
    for (let i = 0; i < 60; i++) {
      step += 100;
      for (const run of ['s1', 's2', 's3']) if (run !== 's2' || i < 20) r.write(run, step);
      r.clock.now += 1000;
      r.service.tick();
    }
    expect(r.raised()).toEqual(['s2 trainer-exited critical']);
    expect(r.service.activeAlerts('s2')[0]!.message).toMatch(/kept writing past its step 2,?000/);
    expect(r.service.activeAlerts('s2')[0]!.message).toContain('s1, s3');
    expect(r.activity('s2')).toBe('exited');
    expect([r.service.overlayFor('s1').stop, r.service.overlayFor('s3').stop]).toEqual([null, null]);
  });

  it('its trainer process known and gone: exited at once, and the alert naming the siblings at the deadline', () => {
    const r = rig(configs);
    r.service.onRuns(Object.keys(configs).map((run) => info(run)));
    let step = 0;
    for (let i = 0; i < 60; i++) {
      step += 100;
      for (const run of ['s1', 's2', 's3']) if (run !== 's2' || i < 20) r.write(run, step);
      if (i === 20)
        r.service.onSnapshot({
          t: r.clock.now,
          cpuPct: 1,
          memPct: 10,
          gpus: null,
          trainingProcesses: [],
          processExits: [{ run: 's2', pids: [42], at: r.clock.now, lastSeenAt: r.clock.now - 1000 }],
        } as unknown as SystemSnapshot);
      if (i === 21) {
        expect(r.activity('s2')).toBe('exited');
        expect(r.raised()).toEqual([]);
      }
      r.clock.now += 1000;
      r.service.tick();
    }
    expect(r.raised()).toEqual(['s2 trainer-exited critical']);
    expect(r.service.activeAlerts('s2')[0]!.message).toMatch(/its siblings s1, s3/);
    expect(r.activity('s2')).toBe('exited');
  });

  it('a seed that finished first while slower siblings are still behind its step is no stop', () => {
    const r = rig(configs);
    r.service.onRuns(Object.keys(configs).map((run) => info(run)));
    for (let i = 0; i < 60; i++) {
      // s2 is fastest: it logged step 5000 and stopped; the others are still below it at the end.
      if (i < 20) r.write('s2', (i + 1) * 250);
      r.write('s1', (i + 1) * 70);
      r.write('s3', (i + 1) * 70);
      r.clock.now += 1000;
      r.service.tick();
    }
    expect(r.raised()).toEqual([]);
    expect(r.activity('s2')).toBe('stalled');
  });

  it('opened after the stop: a seed whose file was written 20 s ago, with siblings writing, reads exited', () => {
    const r = rig(configs);
    const lastWrite = T0 - 20_000;
    r.service.onRuns([
      info('s1', { fileWrittenAt: T0 }),
      info('s2', { fileWrittenAt: lastWrite }),
      info('s3', { fileWrittenAt: T0 }),
    ]);
    for (const run of ['s1', 's2', 's3']) {
      r.service.reading(run);
      for (let i = 1; i <= 30; i++) r.write(run, i * 100);
      r.service.read(run);
    }
    // The siblings go on (their rhythm is what the dead seed's own file, without times, cannot say).
    for (let i = 31; i <= 45; i++) {
      r.clock.now += 1000;
      r.write('s1', i * 100);
      r.write('s3', i * 100);
      r.service.tick();
    }
    expect(r.activity('s2')).toBe('exited');
    expect(r.raised()).toEqual(['s2 trainer-exited critical']);
    expect(r.service.overlayFor('s1').stop).toBeNull();
  });
});

describe('no evidence', () => {
  it('stalled as a status past its rhythm, then a stalled-run warning at the stall floor', () => {
    const r = rig({ a: { lr: 1 } });
    r.service.onRuns([info('a')]);
    for (let i = 1; i <= 10; i++) {
      r.write('a', i);
      r.clock.now += 2000;
    }
    r.clock.now += 30_000;
    r.service.tick();
    expect(r.activity('a')).toBe('stalled');
    expect(r.raised()).toEqual([]);
    r.clock.now += 10 * 60_000;
    r.service.tick();
    expect(r.raised()).toEqual(['a stalled-run warning']);
  });

  it('a file time ahead of the clock (a file server’s clock) counts when first seen: the run still falls silent', () => {
    const r = rig({ a: { lr: 1 } });
    const ahead = T0 + 3600_000;
    for (let i = 1; i <= 10; i++) {
      r.service.onRuns([info('a', { fileWrittenAt: ahead + i * 2000 })]);
      r.write('a', i);
      r.clock.now += 2000;
    }
    for (let i = 0; i < 15; i++) {
      r.clock.now += 2000;
      r.service.onRuns([info('a', { fileWrittenAt: ahead + 10 * 2000 })]);
      r.service.tick();
    }
    expect(r.activity('a')).toBe('stalled');
  });

  it('opened a minute after its last write, it reads stalled, not idle', () => {
    const r = rig({ a: { lr: 1 } });
    r.service.onRuns([info('a', { fileWrittenAt: T0 - 60_000 })]);
    r.service.reading('a');
    for (let i = 1; i <= 30; i++) r.write('a', i, (T0 - 60_000 - (30 - i) * 2000) / 1000);
    r.service.read('a');
    r.service.tick();
    expect(r.activity('a')).toBe('stalled');
  });
});

describe('a crash with a traceback (issue 34 §2)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const TRACE =
    'step 10\nTraceback (most recent call last):\n  File "train.py", line 3, in <module>\n    loss.backward()\n' +
    'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\x1b[31m\n';

  /** A silent run `a` (no planned end, no siblings) whose folder's parent holds nohup.out written `logAt`. */
  function crashed(logAt: number, config: Record<string, unknown> = { lr: 1 }): Rig {
    const root = mkdtempSync(join(tmpdir(), 'rlwatch-crash-'));
    dirs.push(root);
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'nohup.out'), TRACE);
    utimesSync(join(root, 'nohup.out'), logAt / 1000, logAt / 1000);
    const r = rig({ a: config }, root);
    for (let i = 1; i <= 10; i++) {
      r.service.onRuns([info('a', { fileWrittenAt: r.clock.now })]);
      r.write('a', i);
      r.clock.now += 2000;
    }
    r.clock.now += 30_000;
    r.service.tick();
    return r;
  }

  it('silent with a log beside it that ends in a traceback written when it stopped: crashed, critical, citing the last line', async () => {
    const r = crashed(T0 + 20_000);
    await vi.waitFor(() => expect(r.activity('a')).toBe('crashed'));
    expect(r.raised()).toEqual(['a trainer-exited critical']);
    const [alert] = r.service.activeAlerts('a');
    expect(alert!.message).toContain(
      'its log "../nohup.out" ends in a traceback: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\\e[31m',
    );
    expect(alert!.message).not.toContain('\x1b');
  });

  it('a stop already alerted as exited before its end, then found a crash: the one alert now cites the traceback', async () => {
    const r = crashed(T0 + 20_000, seedConfig(1, { total_timesteps: 100_000 }));
    expect(r.raised()).toEqual(['a trainer-exited critical']);
    await vi.waitFor(() => expect(r.activity('a')).toBe('crashed'));
    const [alert] = r.service.activeAlerts('a');
    expect(alert!.message).toMatch(
      /^crashed: its log "\.\.\/nohup\.out" ends in a traceback: torch\.OutOfMemoryError/,
    );
    expect(r.raised()).toEqual(['a trainer-exited critical']);
  });

  it('a traceback in a log written an hour before the run stopped is not its crash: stalled, no critical', async () => {
    const r = crashed(T0 - 3600_000);
    await new Promise((res) => setTimeout(res, 100));
    r.service.tick();
    expect(r.activity('a')).toBe('stalled');
    expect(r.raised()).toEqual([]);
  });
});

describe('history', () => {
  it('a run last written three days before it was opened raises nothing new: its load alerts are recorded cleared', () => {
    const r = rig({ a: seedConfig(1, { total_timesteps: 1e6 }) });
    const old = T0 - 3 * 24 * 3600_000;
    r.service.onRuns([info('a', { fileWrittenAt: old, lastEventAt: old })]);
    r.service.reading('a');
    r.service.feed({
      run: 'a',
      tag: 'train/value_loss',
      from: 0,
      steps: Float64Array.of(1, 2, 3, 4),
      wallTimes: Float64Array.of(old / 1000 - 3, old / 1000 - 2, old / 1000 - 1, old / 1000),
      values: Float64Array.of(1, 1, Number.NaN, Number.NaN),
    });
    const notified: string[] = [];
    r.service.onNotification((n) => notified.push(JSON.stringify(n)));
    r.service.read('a');
    r.clock.now += 60_000;
    r.service.tick();
    // The NaN is on record, but as history: not active, never notified; the stop before its end shows, silently.
    expect(r.service.activeAlerts('a')).toEqual([]);
    expect(notified).toEqual([]);
    expect(r.activity('a')).toBe('exited');
    expect(r.raised()).toEqual(['a non-finite critical']);
  });
});

describe('a copied run (fresh files, old logged times: cp, scp, a download)', () => {
  /** Opens `run` with files written just now, its first read holding `points` logged 2 s apart ending at `lastWall`. */
  function open(r: Rig, run: string, points: number, lastWall: number, values?: number[]): void {
    r.service.onRuns([info(run, { fileWrittenAt: r.clock.now - 1000, lastEventAt: r.clock.now - 1000 })]);
    r.service.reading(run);
    const steps = Array.from({ length: points }, (_, i) => i + 1);
    r.service.feed({
      run,
      tag: 'train/value_loss',
      from: 0,
      steps: Float64Array.from(steps),
      wallTimes: Float64Array.from(steps, (i) => (lastWall - (points - i) * 2000) / 1000),
      values: Float64Array.from(values ?? steps.map(() => 1)),
    });
  }

  it('holding an hour of logging that ended days ago: history, never stalled, its load alerts recorded cleared', () => {
    const r = rig({ a: { lr: 1 } });
    const notified: string[] = [];
    r.service.onNotification((n) => notified.push(JSON.stringify(n)));
    const values = Array.from({ length: 1800 }, (_, i) => (i >= 1790 ? Number.NaN : 1));
    open(r, 'a', 1800, T0 - 3 * 24 * 3600_000, values);
    r.service.read('a');
    for (let i = 0; i < 40; i++) {
      r.clock.now += 30_000;
      r.service.tick();
    }
    expect(r.activity('a')).not.toBe('stalled');
    expect(r.service.activeAlerts('a')).toEqual([]);
    expect(notified).toEqual([]);
    expect(r.raised()).toEqual(['a non-finite critical']);
  });

  it('a copy that starts writing again is live: once it falls silent, it is stalled as any run', () => {
    const r = rig({ a: { lr: 1 } });
    open(r, 'a', 1800, T0 - 3 * 24 * 3600_000);
    r.service.read('a');
    r.clock.now += 60_000;
    r.service.tick();
    expect(r.activity('a')).not.toBe('stalled');
    // Resumed from its checkpoint: new points, logged now.
    for (let i = 1; i <= 10; i++) {
      r.write('a', 1800 + i, r.clock.now / 1000);
      r.clock.now += 2000;
    }
    r.clock.now += 30_000;
    r.service.tick();
    expect(r.activity('a')).toBe('stalled');
    r.clock.now += 10 * 60_000;
    r.service.tick();
    expect(r.raised()).toEqual(['a stalled-run warning']);
  });

  it("a replay's first flush (seconds of old logged times in fresh files) is not a copy: its silence is a stall", () => {
    const r = rig({ a: { lr: 1 } });
    open(r, 'a', 5, T0 - 3 * 24 * 3600_000);
    r.service.read('a');
    r.clock.now += 3 * 60_000;
    r.service.tick();
    expect(r.activity('a')).toBe('stalled');
    r.clock.now += 10 * 60_000;
    r.service.tick();
    expect(r.raised()).toEqual(['a stalled-run warning']);
  });
});

describe('StopFacts', () => {
  it('reads configs when the run names change (at most every 5 s) or once a minute, not on every run list', () => {
    let reads = 0;
    const facts = new StopFacts((run) => (reads++, seedConfig(Number(run.slice(1)))));
    const runs = [info('s1'), info('s2')];
    expect(facts.of(runs, T0).get('s1')!.siblings).toEqual(['s2']);
    expect(reads).toBe(2);
    for (let i = 1; i <= 10; i++) facts.of(runs, T0 + i * 1000);
    expect(reads).toBe(2);
    const three = [...runs, info('s3')];
    facts.of(three, T0 + 11_000);
    expect(reads).toBe(5);
    facts.of([...three, info('s4')], T0 + 12_000);
    expect(reads).toBe(5);
    expect(facts.of([...three, info('s4')], T0 + 16_000).get('s4')!.siblings).toEqual(['s1', 's2', 's3']);
    facts.of([...three, info('s4')], T0 + 80_000);
    expect(reads).toBe(13);
  });

  it("a job's nodes are no siblings, though their configs are one (a stopped node is the job rules' to judge, #38)", () => {
    const facts = new StopFacts(() => seedConfig(1));
    const runs = [
      info('h1//grpo', { job: 'grpo-3n' }),
      info('h2//grpo', { job: 'grpo-3n' }),
      info('h3//grpo', { job: 'grpo-3n' }),
      info('a'),
      info('b'),
    ];
    const of = facts.of(runs, T0);
    for (const node of ['h1//grpo', 'h2//grpo', 'h3//grpo']) expect(of.get(node)!.siblings).toEqual([]);
    // Runs of no job with the same config stay one seed group.
    expect(of.get('a')!.siblings).toEqual(['b']);
  });
});

describe('isHistory', () => {
  const old = T0 - 3 * 24 * 3600_000;
  const held = [
    {
      run: 'a',
      tag: 'loss',
      from: 0,
      steps: Float64Array.of(1),
      wallTimes: Float64Array.of(old / 1000),
      values: Float64Array.of(1),
    },
  ];
  it('the files’ write time decides; logged times only where no file time is known (a replay logs old times)', () => {
    expect(isHistory(null, T0 - 1000, held, T0, false)).toBe(false);
    expect(isHistory(info('a', { fileWrittenAt: T0 - 1000 }), null, held, T0, false)).toBe(false);
    expect(isHistory(null, old, [], T0, false)).toBe(true);
    expect(isHistory(null, null, held, T0, false)).toBe(true);
    expect(isHistory(null, null, [], T0, false)).toBe(false);
  });

  it('a read its stop tracker found a copy of an ended run is history, whatever its files’ write time', () => {
    expect(isHistory(null, T0 - 1000, held, T0, true)).toBe(true);
  });
});

describe('RunStopTracker.copiedHistory', () => {
  const old = T0 - 3 * 24 * 3600_000;
  /** A tracker first seen at T0 that was fed points logged at `walls` (ms). */
  const fed = (...walls: number[]): RunStopTracker => {
    const t = new RunStopTracker();
    walls.forEach((w, i) => t.note(T0, i, w / 1000, null));
    return t;
  };
  it('ten minutes or more of logged times that ended over an hour before it was first seen are a copy', () => {
    expect(fed(old - 10 * 60_000, old).copiedHistory()).toBe(true);
    expect(fed(old, old - 10 * 60_000).copiedHistory()).toBe(true);
    expect(fed(old - 9 * 60_000, old).copiedHistory()).toBe(false);
    expect(fed(T0 - 2 * 3600_000, T0 - 50 * 60_000).copiedHistory()).toBe(false);
    expect(new RunStopTracker().copiedHistory()).toBe(false);
  });
});
