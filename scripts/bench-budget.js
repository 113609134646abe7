// `npm run bench:budget`: runs the benches bench/budget.json names (short: N=7), prints each figure beside its budget
// and its last recorded value, and exits 1 where one is worse than `gate` × its budget (or was not printed). A figure
// with `"gated": false` (a new way of measuring, no quiet value recorded yet) is printed and must be measured, not compared.
// `--json FILE` also writes the verdicts (scripts/test.js counts them as tests in CI).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildIfStale, root } from './lib/build.js';

const budget = JSON.parse(readFileSync(join(root, 'bench', 'budget.json'), 'utf8'));
const jsonAt = process.argv.indexOf('--json');
const jsonOut = jsonAt >= 0 ? process.argv[jsonAt + 1] : null;

if (buildIfStale() !== 0) process.exit(1);
const measured = new Map();
for (const bench of [...new Set(budget.figures.map((f) => f.bench))]) {
  const r = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join('bench', `${bench}.bench.ts`)],
    { cwd: root, encoding: 'utf8', env: { ...process.env, N: process.env.N ?? '7' } },
  );
  process.stdout.write(r.stdout.replace(/^figure .*\n/gm, ''));
  if (r.status !== 0) process.stdout.write(`bench ${bench} failed (${r.status}): ${r.stderr}\n`);
  for (const m of r.stdout.matchAll(/^figure (\S+) (\S+)$/gm)) measured.set(m[1], Number(m[2]));
}

const verdicts = budget.figures.map((f) => {
  const value = measured.get(f.key);
  // A throughput (`better: "higher"`) fails below budget / gate, a time above budget × gate.
  const within = f.better === 'higher' ? value >= f.budget / budget.gate : value <= budget.gate * f.budget;
  const gated = f.gated !== false;
  const ok = value !== undefined && Number.isFinite(value) && (within || !gated);
  return { ...f, value: value ?? null, ok, gated };
});
const cell = (v) => (v === null || v === undefined ? '—' : String(v));
process.stdout.write(`\nperformance budget (a figure fails at worse than ${budget.gate}× its budget)\n`);
for (const v of verdicts)
  process.stdout.write(
    `${!v.ok ? 'FAIL' : v.gated ? 'ok  ' : 'info'}  ${v.what.padEnd(60)} ${cell(v.value).padStart(7)} ${v.unit}   budget ${v.budget}   last ${cell(v.last)}\n`,
  );
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(verdicts, null, 2));
process.exit(verdicts.every((v) => v.ok) ? 0 : 1);
