// The alert benchmark (issue 20): runs bench/scenarios/score.py (a copy of ../shared/scenarios/score.py) on labelled recordings while the built CLI's
// `rlwatch watch {parent} --json` watches their replay, and returns score.py's table and JSON summary.
// Shared by `npm run bench alerts` (scripts/bench.js) and the CI gate (test/alerts/).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { root } from './build.js';

/** The benchmark's shared folder (scorer, replayer, trainers, the dev recordings), beside the repository. */
export const sharedScenarios = resolve(root, '..', 'shared', 'scenarios');
export const sharedRecordings = join(sharedScenarios, 'recordings');
/** The project's own recordings (bench/scenarios/README.md). */
export const ownRecordings = join(root, 'bench', 'scenarios', 'recordings');
/** The scorer: the project's copy of score.py (its rule families know the kinds of the family recordings). */
export const scorerScript = join(root, 'bench', 'scenarios', 'score.py');

/** The monitor under test: the built CLI, run in the repository root by score.py. */
export const monitorCmd = 'node bin/rlwatch.js watch {parent} --json';

/** A python3 that runs score.py (stdlib only): $RLWATCH_PYTHON, python3 on PATH, or /usr/bin/python3; null if none. */
export function findPython() {
  const candidates = [process.env.RLWATCH_PYTHON, 'python3', '/usr/bin/python3'].filter(Boolean);
  for (const py of candidates) {
    const r = spawnSync(py, ['-c', 'import sys; assert sys.version_info >= (3, 8)'], { stdio: 'ignore' });
    if (r.status === 0) return py;
  }
  return null;
}

/** Why the benchmark cannot run here (a sentence), or null. */
export function missingPrerequisite() {
  if (!existsSync(sharedRecordings))
    return `alerts benchmark: ${sharedRecordings} not found — the shared scenarios folder must sit beside the repository (../shared/scenarios)`;
  if (!findPython())
    return 'alerts benchmark: no python3 found (tried $RLWATCH_PYTHON, python3 on PATH, /usr/bin/python3); score.py needs Python ≥ 3.8 (stdlib only)';
  return null;
}

/** Recording folders (each holds labels.json) under a folder of recordings, sorted; [] when it does not exist. */
export function recordingsIn(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((d) => existsSync(join(dir, d, 'labels.json')))
    .sort()
    .map((d) => join(dir, d));
}

/** Every recording of the benchmark: the shared dev set, then the project's own. */
export function allRecordings() {
  return [...recordingsIn(sharedRecordings), ...recordingsIn(ownRecordings)];
}

/**
 * Runs score.py once on `recordings` (all replayed in parallel, in real time). Resolves with its exit status,
 * its whole output (the table) and the parsed JSON summary (its last line), or summary null when it printed none.
 * `echo` streams the output to this process's stdout as it comes.
 */
export function runScorer({ recordings, out, echo = false, maxWall = 600, extraArgs = [] }) {
  const python = findPython();
  if (!python) return Promise.reject(new Error(missingPrerequisite() ?? 'no python3'));
  const args = [
    scorerScript,
    '--cwd',
    root,
    '--cmd',
    monitorCmd,
    '--max-wall',
    String(maxWall),
    ...(out ? ['--out', out] : []),
    ...extraArgs,
    ...recordings,
  ];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(python, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const take = (chunk) => {
      const s = chunk.toString();
      output += s;
      if (echo) process.stdout.write(s);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', reject);
    child.on('close', (status) => {
      resolvePromise({ status: status ?? 1, output, summary: parseSummary(output) });
    });
  });
}

/** score.py's last line is its JSON summary. */
export function parseSummary(output) {
  const lines = output.trimEnd().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i].trim();
    if (!l.startsWith('{')) continue;
    try {
      return JSON.parse(l);
    } catch {
      return null;
    }
  }
  return null;
}

/** What the CI gate requires of a summary: each failed requirement as a sentence ([] = pass). */
export function gateFailures(summary) {
  if (!summary) return ['score.py printed no summary'];
  const want = { recall: 1, missed: 0, late: 0, false_alarms: 0, citation_errors: 0, duplicates: 0 };
  const out = [];
  for (const [k, v] of Object.entries(want))
    if (summary[k] !== v) out.push(`${k} is ${summary[k]}, must be ${v}`);
  if (summary.truncated_by_max_wall) out.push('the run was cut short by --max-wall');
  return out;
}
