// Whole-process `rlwatch export` of the built CLI (issue 22's export targets): 100 figures of a 100-tag run, the
// default export (CSV, JSON and PNG) of it, and one incident snapshot of a 40-tag run; min / median / max, load.
// Run: npm run bench export-process   (env: N runs each, default 5; STEPS of the 100-tag run, default 10000;
// INCIDENT_STEPS of the incident run, default 10000; FULL=0 skips the default-export row)

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeIncidentRun } from './lib/incident-run';
import { envNumber, logFolder } from './lib/log-folder';
import { pct } from './lib/stats';

const CLI = join(import.meta.dirname, '..', 'out', 'main', 'cli.js');
/** Runs per row (`npm run bench:budget` asks for N=7: a 100-figure export is seconds, so at most 3 there). */
const N = envNumber('N', 5);
const RUNS = process.env.N === '7' ? 3 : N;
const STEPS = envNumber('STEPS', 10_000);
const INCIDENT_STEPS = envNumber('INCIDENT_STEPS', 10_000);

/** Milliseconds of `rlwatch ARGS`, RUNS times, sorted; `args` gets a new --out folder each run. */
function time(args: (out: string) => string[]): number[] {
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const out = mkdtempSync(join(tmpdir(), 'rlwatch-bench-export-out-'));
    try {
      const t0 = performance.now();
      const r = spawnSync(process.execPath, [CLI, ...args(join(out, 'x'))], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      ms.push(performance.now() - t0);
      if (r.status !== 0)
        throw new Error(`rlwatch ${args('OUT').join(' ')} exited ${r.status}: ${String(r.stderr)}`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }
  return ms.sort((a, b) => a - b);
}

const folder = logFolder({ runs: 1, stepsPerRun: STEPS, tags: 100, layout: 'per-step' });
const run100 = join(folder.dir, folder.runs[0]!.name);
const incident = mkdtempSync(join(tmpdir(), 'rlwatch-bench-export-incident-'));
try {
  writeIncidentRun(incident, 40, INCIDENT_STEPS);
  const list = spawnSync(
    process.execPath,
    [CLI, 'export', join(incident, 'runs'), '--incident', 'list', '--json'],
    {
      encoding: 'utf8',
    },
  );
  const kl = list.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: string; rule: string })
    .find((a) => a.rule === 'kl-above-target');
  if (!kl) throw new Error(`no KL alert in the incident run: ${list.stdout}${list.stderr}`);
  const load = loadavg()[0]!.toFixed(2);
  // [what, runs, target ms, the budget's key for its median (bench/budget.json)]
  const rows: [string, number[], number | null, string | null][] = [
    [
      `100 figures: export --png, 100 tags × ${STEPS} steps`,
      time((out) => ['export', run100, '--out', out, '--png']),
      10_000,
      'export.figures_100_ms',
    ],
    ...(process.env.FULL === '0' || process.env.N === '7'
      ? []
      : [
          [
            `default export (CSV, JSON, PNG), same run`,
            time((out) => ['export', run100, '--out', out]),
            null,
            null,
          ] as [string, number[], number | null, string | null],
        ]),
    [
      `one incident: export --incident, 40 tags × ${INCIDENT_STEPS} steps`,
      time((out) => ['export', join(incident, 'runs'), '--incident', kl.id, '--out', out]),
      1_000,
      'export.incident_ms',
    ],
  ];
  process.stdout.write(`whole process, ${RUNS} runs each (ms), load ${load} → ${loadavg()[0]!.toFixed(2)}\n`);
  for (const [what, ms, budget] of rows)
    process.stdout.write(
      `${what.padEnd(56)} min ${ms[0]!.toFixed(0).padStart(6)}  median ${pct(ms, 50).toFixed(0).padStart(6)}  max ${ms.at(-1)!.toFixed(0).padStart(6)}${budget === null ? '' : `  (target ≤ ${budget})`}\n`,
    );
  // Machine-readable figures for the budget (scripts/bench-budget.js reads `figure KEY VALUE` lines).
  for (const [, ms, , key] of rows)
    if (key) process.stdout.write(`figure ${key} ${pct(ms, 50).toFixed(1)}\n`);
} finally {
  rmSync(incident, { recursive: true, force: true });
}
