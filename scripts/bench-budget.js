// `npm run bench:budget`: runs the benches bench/budget.json names (short: N=7), prints each figure beside its budget
// and its last recorded value, and exits 1 where one is worse than `gate` × its budget (or was not printed), that limit
// widened on a machine slower than the one the budget was set on (`scale`: node's own start-up, then and now). A figure
// with `"gated": false` (its reason beside it in budget.json) is printed and must be measured, not compared.
// `--contended` (#36, on demand, never in CI) runs the benches a second time beside one busy process per core
// (scripts/lib/contention.js) and prints that figure beside the quiet one, against the figure's `contended` target
// where it has one; contended figures are printed, never gated. `--only BENCH,…` runs only those benches.
// `--json FILE` also writes the verdicts (scripts/test.js counts them as tests in CI).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { buildIfStale, root } from './lib/build.js';
import { budgetVerdicts, machineScale } from './lib/budget-verdicts.js';
import { startContention } from './lib/contention.js';

const budget = JSON.parse(readFileSync(join(root, 'bench', 'budget.json'), 'utf8'));
const arg = (name) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : null;
};
const jsonOut = arg('--json');
const only = arg('--only')?.split(',') ?? null;
const contended = process.argv.includes('--contended');
const figures = budget.figures.filter((f) => !only || only.includes(f.bench));

/** Runs each bench once (N=7 unless set) and returns its `figure KEY VALUE` lines as a map, with the load after. */
function measure(label) {
  const measured = new Map();
  for (const bench of [...new Set(figures.map((f) => f.bench))]) {
    process.stdout.write(`\n-- ${bench} (${label})\n`);
    const started = Date.now();
    const r = spawnSync(
      process.execPath,
      [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join('bench', `${bench}.bench.ts`)],
      { cwd: root, encoding: 'utf8', env: { ...process.env, N: process.env.N ?? '7' } },
    );
    process.stdout.write(r.stdout.replace(/^figure .*\n/gm, ''));
    if (r.status !== 0) process.stdout.write(`bench ${bench} failed (${r.status}): ${r.stderr}\n`);
    process.stdout.write(`-- ${bench} took ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
    for (const m of r.stdout.matchAll(/^figure (\S+) (\S+)$/gm)) measured.set(m[1], Number(m[2]));
  }
  return {
    measured,
    load: loadavg()
      .map((x) => x.toFixed(2))
      .join(' '),
  };
}

if (buildIfStale() !== 0) process.exit(1);
const quiet = measure('quiet');
let busy = null;
if (contended) {
  // The spinners start before the benches start rlwatch and run until the last bench has printed.
  const spinners = startContention();
  process.stdout.write(
    `\ncontention: ${spinners.count} busy processes (one per core), pids ${spinners.pids.join(' ')}\n`,
  );
  await new Promise((r) => setTimeout(r, 1000));
  try {
    busy = measure(`contended, ${spinners.count} spinners`);
  } finally {
    spinners.stop();
  }
}

// The startup bench prints the scale; with `--only` and no startup, the limits are unscaled (and it says so).
const scale = machineScale(budget, quiet.measured);
const verdicts = budgetVerdicts(budget, figures, quiet.measured).map((v) => {
  if (!busy) return v;
  const c = busy.measured.get(v.key);
  // Printed, never gated: met when within the contended target itself (no 2× slack).
  const contendedMet =
    v.contended !== undefined && c !== undefined
      ? v.better === 'higher'
        ? c >= v.contended
        : c <= v.contended
      : undefined;
  return { ...v, contendedValue: c ?? null, contendedMet };
});
const cell = (v) => (v === null || v === undefined ? '—' : String(v));
process.stdout.write(
  `\nperformance budget (a figure fails at worse than ${budget.gate}× its budget × the machine's scale)\n` +
    (scale === null
      ? `machine scale: not measured (the startup bench did not run): 1\n`
      : `machine scale ${scale.toFixed(2)}: ${budget.scale.what} ${quiet.measured.get(budget.scale.key)} ms now, ${budget.scale.last} ms when the budget was set\n`),
);
for (const v of verdicts) {
  const head = `${!v.ok ? 'FAIL' : v.gated ? 'ok  ' : 'info'}  ${v.what.padEnd(60)} ${cell(v.value).padStart(7)} ${v.unit}   budget ${v.budget}   limit ${v.gated ? v.limit : '—'}   last ${cell(v.last)}`;
  const tail = busy
    ? `   contended ${cell(v.contendedValue)}${v.contended === undefined ? '' : ` (target ${v.contended}: ${v.contendedMet === undefined ? '—' : v.contendedMet ? 'met' : 'over'})`}`
    : '';
  process.stdout.write(`${head}${tail}\n`);
}
process.stdout.write(`load average after the quiet pass: ${quiet.load}\n`);
if (busy)
  process.stdout.write(
    `load average after the contended pass: ${busy.load} (${availableParallelism()} cores; contended figures are printed, never gated)\n`,
  );
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(verdicts, null, 2));
process.exit(verdicts.every((v) => v.ok) ? 0 : 1);
