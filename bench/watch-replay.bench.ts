// One-process replay of `rlwatch watch`'s steady state (#36 target 2): its CPU per second of 50 runs × 50 tags appending.
// Run: npm run bench watch-replay   (env: WARMUP 30 rounds not counted, PACED 30 rounds one step every PERIOD_MS 1000,
// ROUNDS 400 rounds each step once the last is drained, RUNS 50, TAGS 50, HISTORY 1000, SYSTEM 1 (0: no system
// sampler), PROFILE=1: a CPU profile of the rounds, top self times printed and the .cpuprofile kept; AB=DIR: this
// tree against the checkout in DIR, each replay in a process of its own, one drained round each in turn)
//
// The workspace, watch session, alert feed, system sampler and compact text form wired as `rlwatch watch DIR` wires
// them (src/cli/watch-command.ts), in this process; the runs' writer is this process too (one Event per tag, one flush
// per run per step, as bench/lib/soak-writer.ts), its CPU measured apart and subtracted. Each round: one step for every
// run; the rlwatch side's CPU (process.cpuUsage) from the flush until all the step's points have been pushed
// (`drain`, the per-delta path) and over the whole period less the writing (`second`: the timers too — the sweep,
// runs.changed, the sampler, the compact form's flush).

import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { Session } from 'node:inspector';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createWatchAlerts } from '../src/core/watch/watch-alerts';
import { WatchSession } from '../src/core/watch/watch-session';
import { createSystemSampler } from '../src/core/system';
import { createWorkspace } from '../src/core/workspace/create';
import { CompactWatch } from '../src/cli/watch-text';
import { parseSettings } from '../src/core/app/settings';
import { selfTimes } from './lib/cpu-profile';
import { envNumber, tagNames, valueAt } from './lib/log-folder';
import { soakWriters, writeSoakHistory } from './lib/soak-runs';
import { pct } from './lib/stats';

const WARMUP = envNumber('WARMUP', 30);
const PACED = envNumber('PACED', 30);
const ROUNDS = envNumber('ROUNDS', 400);
const PERIOD_MS = envNumber('PERIOD_MS', 1000);
const RUNS = envNumber('RUNS', 50);
const TAGS = envNumber('TAGS', 50);
const HISTORY = envNumber('HISTORY', 1000);
const SYSTEM = envNumber('SYSTEM', 1) === 1;
const PROFILE = process.env.PROFILE === '1';
/** A round whose points are not all pushed by then is reported and left. */
const DRAIN_TIMEOUT_MS = 10_000;
const COMPACT_FLUSH_MS = 250;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const summary = (xs: number[], unit: string, digits = 2): string => {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${pct(s, 50).toFixed(digits)} ${unit}, p90 ${pct(s, 90).toFixed(digits)} ${unit}`;
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-bench-replay-'));
  const tags = tagNames(TAGS);
  const writers = soakWriters(dir, RUNS);
  // The history, as the soak writer writes it.
  writeSoakHistory(writers, tags, HISTORY, Date.now() / 1000);

  // As `rlwatch watch DIR` (compact form) wires it; its text goes to /dev/null (watch's stdout is a pipe).
  const out = openSync('/dev/null', 'w');
  const compact = new CompactWatch({ colour: false });
  let flushTimer: NodeJS.Timeout | null = null;
  const flush = (): void => {
    flushTimer = null;
    const text = compact.flush(Date.now());
    if (text !== '') writeSync(out, text);
  };
  const workspace = createWorkspace({});
  const sampler = SYSTEM ? createSystemSampler({}) : null;
  const session = new WatchSession({
    workspace,
    emit: (line) => {
      const text = compact.push(line);
      if (text !== '') writeSync(out, text);
      if (compact.due && flushTimer === null) flushTimer = setTimeout(flush, COMPACT_FLUSH_MS);
    },
    alerts: createWatchAlerts({
      root: dir,
      configOf: (run) => workspace.configOf(run),
      writtenAt: (run) => workspace.writtenAt(run),
      runs: () => workspace.runNames(),
      settings: parseSettings(undefined),
    }),
    ...(sampler ? { system: sampler } : {}),
  });
  // The bench's own count of pushed points (after the session's handler: when it hits the step's total, the
  // session has handled every delta of the step).
  let points = 0;
  let deltas = 0;
  let drained: (() => void) | null = null;
  let want = Infinity;
  workspace.on('series.appended', (d) => {
    points += d.steps.length;
    deltas++;
    if (points >= want && drained) drained();
  });
  const t0 = performance.now();
  await workspace.open(dir);
  await workspace.whenLoaded();
  if (sampler) {
    sampler.setRuns(workspace.runDirs());
    workspace.on('runs.changed', () => sampler.setRuns(workspace.runDirs()));
    sampler.start();
  }
  console.log(
    `first read of ${RUNS} runs × ${TAGS} tags × ${HISTORY} steps: ${((performance.now() - t0) / 1000).toFixed(1)} s (load ${load()})`,
  );
  await sleep(2000);

  const profiler = PROFILE ? new Session() : null;
  const post = (method: string): Promise<unknown> =>
    new Promise((res, rej) => profiler!.post(method, (err, r) => (err ? rej(err) : res(r))));
  if (profiler) {
    profiler.connect();
    await post('Profiler.enable');
    await post('Profiler.start');
  }

  let step = HISTORY;
  let timeouts = 0;
  /** One step for every run; the CPU of the writing, of the flush → drain, and of the whole period less the writing. */
  const round = async (
    periodMs: number,
  ): Promise<{ write: number; drain: number; second: number; deltas: number }> => {
    const start = performance.now();
    const p0 = points;
    const d0 = deltas;
    const c0 = cpuMs();
    const wall = Date.now() / 1000;
    for (let r = 0; r < RUNS; r++)
      for (let k = 0; k < TAGS; k++)
        writers[r]!.scalars(step, [{ tag: tags[k]!, value: valueAt(r, k, step) }], 'simple', wall);
    for (const w of writers) w.flush();
    step++;
    const c1 = cpuMs();
    want = p0 + RUNS * TAGS;
    const ok = await new Promise<boolean>((res) => {
      const timer = setTimeout(() => res(false), DRAIN_TIMEOUT_MS);
      drained = () => {
        clearTimeout(timer);
        res(true);
      };
      if (points >= want) drained();
    });
    drained = null;
    const c2 = cpuMs();
    if (!ok) timeouts++;
    if (periodMs > 0) await sleep(Math.max(0, start + periodMs - performance.now()));
    const c3 = cpuMs();
    return { write: c1 - c0, drain: c2 - c1, second: c3 - c1, deltas: deltas - d0 };
  };

  const paced: Round[] = [];
  const fast: Round[] = [];
  if (process.env.REPLAY_CHILD === '1') {
    // Driven by an A/B (below): one drained round per "round" line, its figures as a JSON line.
    process.stdout.write('ready\n');
    for await (const line of createInterface({ input: process.stdin })) {
      if (line !== 'round') break;
      process.stdout.write(JSON.stringify(await round(0)) + '\n');
    }
  } else {
    for (let i = 0; i < WARMUP; i++) await round(0);
    for (let i = 0; i < PACED; i++) paced.push(await round(PERIOD_MS));
    for (let i = 0; i < ROUNDS; i++) fast.push(await round(0));
  }

  let profilePath: string | null = null;
  if (profiler) {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    profilePath = join(tmpdir(), `watch-replay-${process.pid}.cpuprofile`);
    writeFileSync(profilePath, JSON.stringify(profile));
    profiler.disconnect();
  }
  session.close();
  if (flushTimer !== null) clearTimeout(flushTimer);
  sampler?.stop();
  await workspace.close();
  for (const w of writers) w.close();
  closeSync(out);
  rmSync(dir, { recursive: true, force: true });

  if (process.env.REPLAY_CHILD === '1') return;
  const total = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  console.log(`load ${load()}; ${RUNS * TAGS} points a step, system sampling ${SYSTEM ? 'on' : 'off'}`);
  console.log(
    `  paced, one step every ${PERIOD_MS} ms, ${PACED} rounds: the whole second less the writing ${summary(
      paced.map((r) => r.second),
      'ms CPU',
    )}; mean ${(total(paced.map((r) => r.second)) / PACED).toFixed(2)} ms`,
  );
  console.log(
    `    of which flush → drain ${summary(
      paced.map((r) => r.drain),
      'ms CPU',
    )}`,
  );
  console.log(
    `  drained, each step once the last is drained, ${ROUNDS} rounds: flush → drain ${summary(
      fast.map((r) => r.drain),
      'ms CPU per step',
    )}; mean ${(total(fast.map((r) => r.drain)) / ROUNDS).toFixed(2)} ms`,
  );
  console.log(
    `    per delta ${summary(
      fast.map((r) => (r.drain * 1000) / Math.max(1, r.deltas)),
      'µs CPU',
    )} (${(total(fast.map((r) => r.deltas)) / ROUNDS).toFixed(0)} deltas a step)`,
  );
  console.log(
    `  the writer (apart): ${summary(
      fast.map((r) => r.write),
      'ms CPU per step',
    )}`,
  );
  if (timeouts > 0) console.log(`  ${timeouts} rounds not drained within ${DRAIN_TIMEOUT_MS} ms`);
  const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
  console.log(`watch_replay.second_ms ${pct(sorted(paced.map((r) => r.second)), 50).toFixed(2)}`);
  console.log(`watch_replay.drain_ms_per_step ${pct(sorted(fast.map((r) => r.drain)), 50).toFixed(2)}`);
  if (profilePath) {
    const { top, busyMs } = selfTimes(profilePath, 1e6);
    console.log(`profile of the rounds (${profilePath}): busy ${busyMs.toFixed(0)} ms; top self times:`);
    for (const t of top.slice(0, 20))
      console.log(
        `  ${t.ms.toFixed(1).padStart(8)} ms ${((t.ms / busyMs) * 100).toFixed(1).padStart(5)} %  ${t.fn}`,
      );
  }
}

/** AB=DIR: this tree's replay and DIR's (another checkout, its node_modules beside it), each in a process of its own,
 * one drained round each in turn (the order alternating), so the machine's load moves both alike. */
async function ab(other: string): Promise<void> {
  const here = join(import.meta.dirname, '..');
  const start = (cwd: string): { ask: () => Promise<Round>; end: () => void; ready: Promise<void> } => {
    const child = spawn(
      process.execPath,
      [join(here, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join('bench', 'watch-replay.bench.ts')],
      {
        cwd,
        env: { ...process.env, AB: '', REPLAY_CHILD: '1' },
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const next = async (): Promise<string> => {
      for (;;) {
        const r = await lines.next();
        if (r.done) throw new Error(`the replay in ${cwd} ended`);
        if (r.value === 'ready' || r.value.startsWith('{')) return r.value;
        console.log(`  [${cwd}] ${r.value}`);
      }
    };
    return {
      ready: next().then(() => undefined),
      ask: async () => {
        child.stdin!.write('round\n');
        return JSON.parse(await next()) as Round;
      },
      end: () => child.stdin!.end('end\n'),
    };
  };
  const a = start(other);
  await a.ready;
  const b = start(here);
  await b.ready;
  const base: Round[] = [];
  const branch: Round[] = [];
  for (let i = 0; i < WARMUP; i++) {
    await a.ask();
    await b.ask();
  }
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) {
      base.push(await a.ask());
      branch.push(await b.ask());
    } else {
      branch.push(await b.ask());
      base.push(await a.ask());
    }
  }
  a.end();
  b.end();
  const drain = (rs: Round[]): number[] => rs.map((r) => r.drain);
  const mean = (xs: number[]): number => xs.reduce((x, y) => x + y, 0) / xs.length;
  const ratios = base.map((r, i) => branch[i]!.drain / r.drain).sort((x, y) => x - y);
  // The ratio of the means in halves of the rounds: how far the figure moves within one A/B.
  const halves = [0, 1].map((h) => {
    const from = (h * ROUNDS) / 2;
    const to = ((h + 1) * ROUNDS) / 2;
    return mean(drain(branch.slice(from, to))) / mean(drain(base.slice(from, to)));
  });
  console.log(`A/B, ${ROUNDS} rounds each, alternating; load ${load()}`);
  console.log(
    `  base ${other}: flush → drain ${summary(drain(base), 'ms CPU per step')}; mean ${mean(drain(base)).toFixed(2)} ms`,
  );
  console.log(
    `  this tree: flush → drain ${summary(drain(branch), 'ms CPU per step')}; mean ${mean(drain(branch)).toFixed(2)} ms`,
  );
  console.log(
    `  this tree / base, per pair of rounds: median ${pct(ratios, 50).toFixed(3)} (p25 ${pct(ratios, 25).toFixed(3)}, p75 ${pct(ratios, 75).toFixed(3)}); of the means ${(mean(drain(branch)) / mean(drain(base))).toFixed(3)} (halves ${halves.map((h) => h.toFixed(3)).join(', ')})`,
  );
  console.log(`watch_replay.ab_ratio ${pct(ratios, 50).toFixed(3)}`);
}

interface Round {
  write: number;
  drain: number;
  second: number;
  deltas: number;
}

void (process.env.AB ? ab(process.env.AB) : main()).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
