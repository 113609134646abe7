// The app (AppCore) and `rlwatch watch` produce the same alert transitions on the demo and on every corpus run,
// including live system samples and runs that stall and then finish: both run the one AlertService.

import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunInfo, SeriesDelta } from '../../../src/shared/domain';
import type { SystemSnapshot } from '../../../src/shared/system-types';
import { AppCore } from '../../../src/core/app/app-core';
import { openStore } from '../../../src/core/store';
import type { SamplerLike } from '../../../src/core/app/system-feed';
import { startDemo } from '../../../src/core/demo/demo-writer';
import type { ProgressInfo } from '../../../src/core/readers/types';
import { createWatchAlerts } from '../../../src/core/watch/watch-alerts';
import type { AlertLine, WatchLine } from '../../../src/core/watch/watch-lines';
import { WatchSession } from '../../../src/core/watch/watch-session';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';
import { DEFAULT_SETTINGS } from '../../../src/shared/domain';

const FIX = join(__dirname, '../../fixtures');

/** What a real workspace told its listeners on a cold open, to replay identically into both pipelines. */
interface Recording {
  events: ({ kind: 'runs'; runs: RunInfo[] } | { kind: 'delta'; delta: SeriesDelta })[];
  runs: RunInfo[];
  config: Map<string, Record<string, unknown> | null>;
  progress: Map<string, ProgressInfo | null>;
}

async function record(dir: string): Promise<Recording> {
  const ws = createWorkspace({});
  const rec: Recording = { events: [], runs: [], config: new Map(), progress: new Map() };
  ws.on('runs.changed', (runs) => rec.events.push({ kind: 'runs', runs }));
  ws.on('series.appended', (delta) => rec.events.push({ kind: 'delta', delta }));
  await ws.open(dir);
  rec.runs = ws.listRuns();
  for (const r of rec.runs) {
    rec.config.set(r.run, ws.configOf(r.run));
    rec.progress.set(r.run, ws.progressOf(r.run));
  }
  await ws.close();
  return rec;
}

type Listener = (payload: unknown) => void;

/** A workspace that replays a recording: what both pipelines listen to, nothing read from disk. */
class ReplayWorkspace {
  private readonly listeners = new Map<string, Set<Listener>>();
  root: string | null = null;
  constructor(private readonly rec: Recording) {}
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
  async open(dir: string): Promise<void> {
    this.root = dir;
  }
  async close(): Promise<void> {
    this.root = null;
  }
  listRuns(): RunInfo[] {
    return this.rec.runs;
  }
  runInfoOf(run: string): RunInfo | null {
    return this.rec.runs.find((r) => r.run === run) ?? null;
  }
  runNames(): string[] {
    return this.rec.runs.map((r) => r.run);
  }
  runDirs(): { run: string; dir: string }[] {
    return this.rec.runs.map((r) => ({ run: r.run, dir: join(this.root ?? '', r.run) }));
  }
  configOf(run: string): Record<string, unknown> | null {
    return this.rec.config.get(run) ?? null;
  }
  progressOf(run: string): ProgressInfo | null {
    return this.rec.progress.get(run) ?? null;
  }
  watchInfo(): { polling: boolean; suggestion: string | null } {
    return { polling: false, suggestion: null };
  }
}

function snapshot(t: number, gpuMemPct: number, memPct: number): SystemSnapshot {
  return {
    t,
    cpuPct: 50,
    memPct,
    gpus: [{ index: 0, utilizationGpuPct: 5, memoryUsedMiB: gpuMemPct * 100, memoryTotalMiB: 10_000 }],
  } as unknown as SystemSnapshot;
}

/** A run list as it looked while training: no run is finished yet. Its file times are the recording's (the real
 * clock), not the replay's: dropped, so the replay's clock alone says how long a run was silent. */
const unfinished = (runs: RunInfo[]): RunInfo[] =>
  runs.map((r) => ({
    ...r,
    fileWrittenAt: null,
    ...(r.progress?.fraction === 1 ? { progress: { ...r.progress, fraction: 0.99 } } : {}),
  }));

/** The replay both pipelines get: the recording with 2 s between events (no run finished yet), 15 minutes of
 * silence and a stalled-run check, system samples (GPU memory climbing to full, then back), every run finished. */
function script(rec: Recording, clock: { now: number }, h: Hooks): void {
  for (const e of rec.events) {
    clock.now += 2000;
    if (e.kind === 'runs') h.runs(unfinished(e.runs));
    else h.delta(e.delta);
  }
  clock.now += 15 * 60_000;
  h.tick();
  const pcts = [50, 96, 97, 98, 99.5, 99.6, 99.7, 60, 50, 40, 30];
  for (let i = 0; i < pcts.length; i++) {
    clock.now += 1000;
    h.snapshot(snapshot(clock.now, pcts[i]!, i < 5 ? 95 : 40));
  }
  clock.now += 2000;
  h.runs(rec.runs.map((r) => ({ ...r, progress: { fraction: 1, etaSeconds: 0 } })));
}

interface Hooks {
  runs(runs: RunInfo[]): void;
  delta(d: SeriesDelta): void;
  tick(): void;
  snapshot(s: SystemSnapshot): void;
}

/** `cleared`: why it cleared, as the line prints it (the window's clearedBecause). */
type Transition = Pick<AlertLine, 'run' | 'rule' | 'severity' | 'state' | 'step'> & { cleared?: string };

async function throughApp(dir: string, rec: Recording): Promise<Transition[]> {
  const clock = { now: 1_700_000_000_000 };
  const ws = new ReplayWorkspace(rec);
  let sampled: ((s: SystemSnapshot) => void) | null = null;
  const sampler: SamplerLike = {
    start: () => {},
    stop: () => {},
    setHidden: () => {},
    setRuns: () => {},
    subscribe: (l) => ((sampled = l), () => (sampled = null)),
    getHistory: () => [],
  };
  const core = new AppCore({
    host: { mode: 'serve', version: 't', allowOpenFolder: true },
    store: openStore({ path: null }),
    clock: () => clock.now,
    createWorkspace: () => ws as unknown as Workspace,
    createSampler: () => sampler,
    tickMs: 3_600_000,
  });
  const out: Transition[] = [];
  core.bus.on('alerts.changed', (c) => {
    if (c.kind === 'updated') return;
    const a = c.alert;
    const cleared = c.kind === 'cleared';
    out.push({
      run: a.run,
      rule: a.rule,
      severity: a.severity,
      state: c.kind as AlertLine['state'],
      step: cleared ? a.clearedStep : a.step,
      ...(cleared ? { cleared: `Cleared: ${a.clearedBecause}.` } : {}),
    });
  });
  await core.open(dir);
  // The page's first chart drawn: sampling starts (it waits for it, #36).
  core.firstScreenDrawn();
  await new Promise((r) => setImmediate(r));
  script(rec, clock, {
    runs: (runs) => ws.emit('runs.changed', runs),
    delta: (d) => ws.emit('series.appended', d),
    tick: () => core.tick(),
    snapshot: (s) => sampled!(s),
  });
  await core.dispose();
  return out;
}

function throughWatch(dir: string, rec: Recording): Transition[] {
  const clock = { now: 1_700_000_000_000 };
  const ws = new ReplayWorkspace(rec);
  const lines: WatchLine[] = [];
  let sampled: ((s: SystemSnapshot) => void) | null = null;
  const alerts = createWatchAlerts({
    root: dir,
    configOf: (run) => ws.configOf(run),
    runs: () => ws.listRuns().map((r) => r.run),
    settings: DEFAULT_SETTINGS,
    clock: () => clock.now,
  });
  const session = new WatchSession({
    workspace: ws as unknown as Workspace,
    emit: (l) => lines.push(l),
    now: () => clock.now,
    alerts,
    system: { subscribe: (l) => ((sampled = l), () => (sampled = null)) },
    tickMs: 3_600_000,
  });
  script(rec, clock, {
    runs: (runs) => ws.emit('runs.changed', runs),
    delta: (d) => ws.emit('series.appended', d),
    tick: () => lines.push(...alerts.tick(clock.now)),
    snapshot: (s) => sampled!(s),
  });
  session.close();
  return lines
    .filter((l): l is AlertLine => l.type === 'alert')
    .map((l) => ({
      run: l.run,
      rule: l.rule,
      severity: l.severity,
      state: l.state,
      step: l.step,
      ...(l.state === 'cleared' ? { cleared: l.message } : {}),
    }));
}

const corpus = ['tfevents', 'wandb', 'progress'].flatMap((kind) =>
  readdirSync(join(FIX, kind))
    .filter((name) => statSync(join(FIX, kind, name)).isDirectory())
    .map((name) => `${kind}/${name}`),
);

const tmp = mkdtempSync(join(tmpdir(), 'rlwatch-agree-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the app and watch agree on alert transitions', () => {
  test('on the demo: the KL blow-up, the machine pseudo-run, a run silent before its end that finishes', async () => {
    const dir = join(tmp, 'demo');
    await startDemo({ dir, steps: 400, rateHz: 1000, startWallTime: 1_700_000_000 }).done;
    const rec = await record(dir);
    const app = await throughApp(dir, rec);
    const watch = throughWatch(dir, rec);
    expect(watch).toEqual(app);
    const seen = app.map((t) => `${t.run} ${t.rule} ${t.severity} ${t.state}`);
    // The KL incident is raised once; crossing twice its target escalates that same incident.
    expect(seen).toContain('ppo_demo kl-above-target warning raised');
    expect(seen).toContain('ppo_demo kl-above-target critical escalated');
    // Silent at 99 % of its planned steps: a stop before its end (critical), not a plain stall.
    expect(seen).toContain('ppo_demo trainer-exited critical raised');
    expect(seen).not.toContain('ppo_demo stalled-run warning raised');
    expect(seen).toContain('(this machine) gpu-memory-high critical escalated');
    expect(seen.indexOf('ppo_demo trainer-exited critical cleared')).toBeGreaterThan(
      seen.indexOf('(this machine) gpu-memory-high critical escalated'),
    );
    // A cleared transition says what cleared it (the same words in both), never its firing text again.
    expect(app.find((t) => t.rule === 'trainer-exited' && t.state === 'cleared')?.cleared).toBe(
      'Cleared: the run finished.',
    );
    expect(app.find((t) => t.rule === 'memory-high' && t.state === 'cleared')?.cleared).toBe(
      'Cleared: System/Memory_Percent = 40 at step 7: the rule no longer holds.',
    );
  }, 60_000);

  const corpusSeen = new Set<string>();

  test.each(corpus)(
    'on %s',
    async (name) => {
      const dir = join(FIX, name);
      const rec = await record(dir);
      const app = await throughApp(dir, rec);
      expect(throughWatch(dir, rec)).toEqual(app);
      // A stalled run (one written often enough to have a rhythm) clears when it finishes.
      const stalled = (state: string): string[] =>
        app.filter((t) => t.rule === 'stalled-run' && t.state === state).map((t) => t.run);
      expect(stalled('cleared').sort()).toEqual(stalled('raised').sort());
      expect(app.some((t) => t.run === '(this machine)' && t.severity === 'critical')).toBe(true);
      for (const t of app) corpusSeen.add(`${t.rule} ${t.state}`);
    },
    60_000,
  );

  test('the corpus replays exercised run rules, stalled runs and their clearing', () => {
    expect(corpusSeen.size).toBeGreaterThan(6);
    expect(corpusSeen).toContain('stalled-run raised');
    expect(corpusSeen).toContain('stalled-run cleared');
  });
});
