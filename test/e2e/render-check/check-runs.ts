// The render check over folders of runs: each folder served once, its runs judged, then their freshness; one line per run.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { checkFolder, type RunFailure, type RunResult } from './check-folder';
import { openDashboard } from './dashboard-page';
import { checkFreshness } from './freshness';
import { inspectRuns } from './inspect-runs';
import type { InvariantName } from './invariants';

/** A folder to serve, and the label its runs are reported and screenshotted under. */
export interface Folder {
  dir: string;
  label: string;
}

/** Corpus groups that are not run folders (nvidia-smi captures are system samples, not runs). */
const NOT_RUNS = new Set(['nvidia-smi']);

/** The corpus's run groups (tfevents, wandb, progress…), one served folder each; a plain folder is itself. */
export function foldersOf(dir: string): Folder[] {
  if (!existsSync(join(dir, 'MANIFEST.tsv'))) return [{ dir, label: basename(dir) }];
  return readdirSync(dir)
    .filter((name) => !NOT_RUNS.has(name) && statSync(join(dir, name)).isDirectory())
    .sort()
    .map((name) => ({ dir: join(dir, name), label: name }));
}

/** Checks every run of every folder; screenshots under `artifacts`; `onResult` hears each run as its folder is done. */
export async function checkRuns(
  browser: Browser,
  folders: readonly Folder[],
  artifacts: string,
  onResult: (r: RunResult) => void = () => {},
): Promise<RunResult[]> {
  const all: RunResult[] = [];
  for (const f of folders) {
    const runs = inspectRuns(f.dir);
    const results = await checkFolder(browser, f.dir, runs, f.label, artifacts);
    for (const fresh of await checkFreshness(browser, runs)) {
      const result = results.find((r) => r.run === fresh.run)!;
      if (fresh.note) result.notes.push(fresh.note);
      result.failures.push(...(fresh.failures ?? []).map((x) => ({ ...x, chart: null })));
    }
    results.forEach(onResult);
    all.push(...results);
  }
  return all;
}

/** Sessions per run a recording's ground truth says (truth.jsonl `log` steps: each step going back starts one),
 * by the run's name under a parent folder the recording is replayed into as `id/`. */
export function truthSessions(recording: string): Map<string, number> {
  const id = basename(recording);
  const last = new Map<string, { step: number; sessions: number }>();
  for (const line of readFileSync(join(recording, 'truth.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    // Python's json writes NaN and Infinity, which JSON has not: only ev, run and step are read here.
    const ev = JSON.parse(line.replace(/-?\b(?:NaN|Infinity)\b/g, 'null')) as {
      ev: string;
      run: string;
      step?: number;
    };
    if (ev.ev !== 'log' || typeof ev.step !== 'number') continue;
    const name = ev.run === '.' ? id : `${id}/${ev.run}`;
    const s = last.get(name);
    if (!s) last.set(name, { step: ev.step, sessions: 1 });
    else {
      if (ev.step < s.step) s.sessions++;
      s.step = ev.step;
    }
  }
  return new Map([...last].map(([run, s]) => [run, s.sessions]));
}

/** How long a replayed folder may take to show the sessions its recordings' truth has, once they are written. */
const SETTLE_MS = 30_000;

/** Whether `dir` holds a file anywhere below it. */
function hasFile(dir: string): boolean {
  if (!existsSync(dir)) return false;
  return readdirSync(dir, { withFileTypes: true }).some(
    (e) => e.isFile() || (e.isDirectory() && hasFile(join(dir, e.name))),
  );
}

/** Replays one recording into `dir` with the scenarios' own replay.py, `speed` times real time. */
function replay(replayPy: string, recording: string, dir: string, speed: number): Promise<void> {
  return new Promise((res, rej) => {
    const p = spawn('python3', [replayPy, recording, dir, '--speed', String(speed)], { stdio: 'ignore' });
    p.on('error', rej);
    p.on('exit', (code) => (code === 0 ? res() : rej(new Error(`replay of ${recording} exited ${code}`))));
  });
}

/**
 * The labelled recordings (../shared/scenarios/recordings: real trainers that crashed, restarted, blew up) replayed
 * live into one folder the dashboard serves from the start, then every run judged as a corpus run is; sessions are
 * expected as the recordings' ground truth has them (a CSV truncated by a restarted trainer keeps its first session
 * only if the dashboard watched it happen).
 */
export async function checkReplayed(
  browser: Browser,
  scenarios: string,
  artifacts: string,
  speed = 20,
): Promise<RunResult[]> {
  const recordings = readdirSync(join(scenarios, 'recordings'))
    .map((r) => join(scenarios, 'recordings', r))
    .filter((r) => existsSync(join(r, 'writes.jsonl')))
    .sort();
  const parent = mkdtempSync(join(tmpdir(), 'rlwatch-replayed-'));
  const replays = recordings.map((r) =>
    replay(join(scenarios, 'replay.py'), r, join(parent, basename(r)), speed),
  );
  // The dashboard opens once every recording wrote its first file (an empty folder shows no run list), and
  // follows the rest live: restarts, truncations, rewrites.
  for (
    let waited = 0;
    waited < 30_000 && !recordings.every((r) => hasFile(join(parent, basename(r))));
    waited += 100
  )
    await new Promise((res) => setTimeout(res, 100));
  const dashboard = await openDashboard(browser, parent).catch(async (e: unknown) => {
    await Promise.allSettled(replays);
    throw e;
  });
  try {
    // On a time axis: what the trainers logged with times is drawn at them, what they logged without is by step.
    await dashboard.setXAxis('Relative');
    await Promise.all(replays);
    const sessions = new Map(recordings.flatMap((r) => [...truthSessions(r)]));
    // The last writes read (the sweep reads every source each second, slower on a loaded machine): at least
    // a sweep or two, and until the run list shows each run's sessions as the truth has them (a run that never
    // does is reported by the check below, after SETTLE_MS).
    await new Promise((res) => setTimeout(res, 2500));
    for (const deadline = Date.now() + SETTLE_MS; Date.now() < deadline; ) {
      let shown = true;
      for (const [run, n] of sessions)
        if ((await dashboard.sessionsBadge(run)) !== (n > 1 ? `· ${n} sessions` : null)) shown = false;
      if (shown) break;
      await new Promise((res) => setTimeout(res, 250));
    }
    return await checkFolder(browser, parent, inspectRuns(parent), 'scenarios', artifacts, {
      dashboard,
      sessions,
    });
  } finally {
    await dashboard.close();
    rmSync(parent, { recursive: true, force: true });
  }
}

/** The letter for each invariant ((a)–(f)). */
const LETTER: Record<InvariantName, string> = {
  'single-point-mark': 'a',
  'flat-line': 'b',
  'distinct-ticks': 'b',
  'labels-inside': 'c',
  'y-covers-data': 'd',
  freshness: 'e',
  'read-errors': 'f',
  'shows-its-run': '-',
  sessions: 'g',
  'no-invented-time': 'h',
  drawn: '-',
};

/** Charts named in a line before the rest are counted. */
const NAMED_CHARTS = 3;

/**
 * One line per run: `ok    folder/run (N charts)`, or `FAIL  folder/run: ` and per failed invariant its letter,
 * name, the charts it failed on and the first failure's detail, e.g.
 * `(a) single-point-mark on 2 charts ("loss", "kl"): loss: its one point has radius 0`.
 */
export function reportLine(r: RunResult): string {
  const name = `${r.folder}/${r.run}`;
  const notes = r.notes.map((n) => ` (${n})`).join('');
  if (r.failures.length === 0) return `ok    ${name} (${r.charts} charts)${notes}`;
  const byInvariant = new Map<InvariantName, RunFailure[]>();
  for (const f of r.failures) byInvariant.set(f.invariant, [...(byInvariant.get(f.invariant) ?? []), f]);
  const what = [...byInvariant].map(([invariant, failures]) => {
    const charts = [...new Set(failures.flatMap((f) => (f.chart === null ? [] : [f.chart])))];
    const named = charts.slice(0, NAMED_CHARTS).map((c) => JSON.stringify(c));
    if (charts.length > NAMED_CHARTS) named.push(`${charts.length - NAMED_CHARTS} more`);
    const where =
      charts.length === 0
        ? ''
        : ` on ${charts.length} chart${charts.length === 1 ? '' : 's'} (${named.join(', ')})`;
    return `(${LETTER[invariant]}) ${invariant}${where}: ${failures[0]!.detail}`;
  });
  return `FAIL  ${name}: ${what.join('; ')}${notes}`;
}
