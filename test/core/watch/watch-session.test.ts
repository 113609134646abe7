// WatchSession: the contract's NDJSON lines from a live folder — runs, scalars, progress, system, alerts.

import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { startDemo } from '../../../src/core/demo/demo-writer';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import type { AlertLine, WatchLine } from '../../../src/core/watch/watch-lines';
import { RunTracker, scalarsLine } from '../../../src/core/watch/watch-lines';
import { WatchSession } from '../../../src/core/watch/watch-session';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';
import type { SeriesDelta } from '../../../src/shared/domain';
import type { SystemSnapshot } from '../../../src/shared/system-types';
import { waitFor } from '../../helpers/wait-for';

let ws: Workspace | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await ws?.close();
  ws = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('watch lines', () => {
  test('scalars lines carry [step, wallTime, value] with non-finite values as null', () => {
    const line = scalarsLine(
      {
        run: 'r',
        tag: 'loss',
        from: 0,
        steps: new Float64Array([1, 2, 3]),
        wallTimes: new Float64Array([10, 11, 12]),
        values: new Float64Array([0.5, Number.NaN, -Infinity]),
      },
      99,
    );
    expect(line).toEqual({
      t: 99,
      type: 'scalars',
      run: 'r',
      tag: 'loss',
      points: [
        [1, 10, 0.5],
        [2, 11, null],
        [3, 12, null],
      ],
    });
  });

  test('run tracker reports runs discovered and removed once each', () => {
    const tracker = new RunTracker();
    const info = (run: string) => ({
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
    });
    expect(tracker.diff([info('a')], 1).map((l) => [l.run, l.state])).toEqual([['a', 'discovered']]);
    expect(tracker.diff([info('a'), info('b')], 2).map((l) => [l.run, l.state])).toEqual([
      ['b', 'discovered'],
    ]);
    expect(tracker.diff([info('b')], 3).map((l) => [l.run, l.state])).toEqual([['a', 'removed']]);
  });
});

describe('watch session on a live demo', () => {
  test('emits the run, every point once, progress updates, system samples and alert lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlwatch-watch-'));
    dirs.push(dir);
    ws = createWorkspace({});
    const lines: WatchLine[] = [];
    let systemListener: ((s: SystemSnapshot) => void) | null = null;
    const fakeAlert: AlertLine = {
      t: 0,
      type: 'alert',
      run: 'ppo_demo',
      rule: 'test',
      severity: 'warning',
      state: 'raised',
      message: 'm',
      tag: null,
      step: 0,
      wallTime: null,
      value: 1,
      tags: [],
      statistic: null,
      id: '["ppo_demo","test",null,0]',
    };
    let alerted = false;
    const session = new WatchSession({
      workspace: ws,
      emit: (l) => lines.push(l),
      now: () => 42,
      system: { subscribe: (l) => ((systemListener = l), () => (systemListener = null)) },
      alerts: { feed: (d) => (d.tag === 'approx_kl' && !alerted ? ((alerted = true), [fakeAlert]) : []) },
    });
    await ws.open(dir);
    const demo = startDemo({ dir, steps: 25, rateHz: 100, startWallTime: 1_700_000_000 });
    await demo.done;
    const kl = (): number[] =>
      lines.flatMap((l) => (l.type === 'scalars' && l.tag === 'approx_kl' ? l.points.map((p) => p[0]) : []));
    await waitFor(() => kl().length === 25, 'all approx_kl points');
    await waitFor(() => lines.some((l) => l.type === 'progress' && l.fraction === 1), 'final progress');

    expect(lines.filter((l) => l.type === 'run')).toEqual([
      { t: 42, type: 'run', run: 'ppo_demo', state: 'discovered' },
    ]);
    expect(kl()).toEqual(Array.from({ length: 25 }, (_, i) => i));
    const progress = lines.filter((l) => l.type === 'progress');
    expect(progress[progress.length - 1]).toMatchObject({
      run: 'ppo_demo',
      fraction: 1,
      max_steps: 25,
      global_step: 25,
    });
    expect(lines.filter((l) => l.type === 'alert')).toEqual([fakeAlert]);

    systemListener!({ t: 5, cpuPct: 12.5, memPct: null } as unknown as SystemSnapshot);
    expect(lines[lines.length - 1]).toEqual({
      t: 42,
      type: 'system',
      cpuPct: 12.5,
      memPct: null,
      gpusStale: false,
      gpus: [],
    });
    session.close();
    expect(systemListener).toBeNull();
  });
});

describe('problems reach watch as lines', () => {
  test('a symlink loop is a notice line, a corrupt event file an error line, a CSV rewritten shorter a reset line', async () => {
    const root = mkdtempSync(join(tmpdir(), 'rlwatch-watch-problems-'));
    dirs.push(root);
    mkdirSync(join(root, 'run'));
    symlinkSync(root, join(root, 'run', 'loop'));
    // An event file whose second record claims a length it does not have, with a bad length CRC.
    const w = new EventFileWriter(join(root, 'run'), { wallTime: 1000 });
    w.scalars(1, [{ tag: 'loss', value: 1 }], 'simple', 1000);
    w.close();
    const eventFile = readdirSync(join(root, 'run')).find((f) => f.includes('tfevents'))!;
    appendFileSync(
      join(root, 'run', eventFile),
      Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 1, 2, 3, 4]),
    );
    writeFileSync(join(root, 'run', 'metrics.csv'), 'step,acc\n1,0.1\n2,0.2\n3,0.3\n');
    const lines: WatchLine[] = [];
    ws = createWorkspace({ watch: true });
    const session = new WatchSession({ workspace: ws, emit: (l) => lines.push(l) });
    await ws.open(root);
    await vi.waitFor(() => expect(lines.some((l) => l.type === 'scalars' && l.tag === 'acc')).toBe(true));
    expect(lines.filter((l) => l.type === 'notice')).toEqual([
      {
        t: expect.any(Number),
        type: 'notice',
        level: 'warning',
        message: expect.stringMatching(/symbolic link loop/),
      },
    ]);
    await vi.waitFor(() => expect(lines.some((l) => l.type === 'error')).toBe(true), { timeout: 10_000 });
    expect(lines.filter((l) => l.type === 'error')).toEqual([
      {
        t: expect.any(Number),
        type: 'error',
        run: 'run',
        file: eventFile,
        offset: expect.any(Number),
        kind: 'bad-length-crc',
        message: expect.any(String),
      },
    ]);
    // The CSV is rewritten shorter by a restarted writer: its steps went back, points printed past step 1 no
    // longer stand in the live view (the earlier contents stay as session 1).
    writeFileSync(join(root, 'run', 'metrics.csv'), 'step,acc\n1,0.5\n');
    await vi.waitFor(() => expect(lines.some((l) => l.type === 'reset')).toBe(true), { timeout: 10_000 });
    expect(lines.find((l) => l.type === 'reset')).toMatchObject({
      run: 'run',
      tag: 'acc',
      reason: 'restart',
    });
    session.close();
  });
});

test("a run's read is handled at once: each delta's scalars line, then one look at the run's progress (#36)", () => {
  const listeners = new Map<string, (p: unknown) => void>();
  let progressAsked = 0;
  const fake = {
    on: (event: string, l: (p: unknown) => void) => (listeners.set(event, l), () => listeners.delete(event)),
    progressOf: () => (progressAsked++, { fraction: 0.5, etaSeconds: 10, fields: {} }),
  };
  const lines: WatchLine[] = [];
  const session = new WatchSession({
    workspace: fake as unknown as Workspace,
    emit: (l) => lines.push(l),
    now: () => 1000,
  });
  const delta = (tag: string, step: number): SeriesDelta => ({
    run: 'r',
    tag,
    from: step,
    steps: Float64Array.of(step),
    wallTimes: Float64Array.of(1_700_000_000 + step),
    values: Float64Array.of(step / 2),
  });
  listeners.get('series.read')!({ run: 'r', deltas: [delta('a', 1), delta('b', 1), delta('c', 1)] });
  expect(lines.map((l) => (l.type === 'scalars' ? `scalars ${l.tag}` : l.type))).toEqual([
    'scalars a',
    'scalars b',
    'scalars c',
    'progress',
  ]);
  expect(progressAsked).toBe(1);
  session.close();
});
