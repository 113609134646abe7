// `npm test`: the app build, unit tests, checks of the built bundles, e2e in Chromium, and meanwhile in the background
// the gates that mostly wait in real time (the alert benchmark, cluster tests, the e2e files that wait on live
// writers); the performance budget last, alone on the machine; ends "N passed, M failed".
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildIfStale, root } from './lib/build.js';
import { findChromium } from '../test/e2e/chromium-path.js';

const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const totals = { passed: 0, failed: 0, skipped: 0 };
/** e2e files that spend their time waiting on live writers in real time (≈ 100 s, little CPU): run in the background. */
const WAITING_E2E = ['test/e2e/stopped-run.test.ts'];

const vitestArgs = (project, out, extra) => [
  vitest,
  'run',
  '--project',
  project,
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${out}`,
  ...extra,
];

/** Adds a vitest JSON report's counts to the totals (a run that died before reporting counts as one failure). */
function count(out, status) {
  if (!existsSync(out)) {
    // The run died before reporting (syntax error, crash): count it as one failure, never as nothing.
    totals.failed += 1;
    return;
  }
  const report = JSON.parse(readFileSync(out, 'utf8'));
  totals.passed += report.numPassedTests;
  totals.failed += report.numFailedTests + (status !== 0 && report.numFailedTests === 0 ? 1 : 0);
  totals.skipped += report.numPendingTests + (report.numTodoTests ?? 0);
  rmSync(out, { force: true });
}

function runProject(project, extra = []) {
  const out = join(root, `.vitest-results.json`);
  rmSync(out, { force: true });
  const r = spawnSync(process.execPath, vitestArgs(project, out, extra), { cwd: root, stdio: 'inherit' });
  count(out, r.status);
}

/**
 * Runs vitest projects one after the other in a child process chain beside the foreground ones; each one's output is
 * kept and printed as a whole when `collect` is awaited, after the foreground's, so the logs do not interleave.
 */
function inBackground(runs) {
  const done = [];
  const chain = runs.reduce(
    (prev, [project, extra], k) =>
      prev.then(
        () =>
          new Promise((resolve) => {
            const out = join(root, `.vitest-results-background-${k}.json`);
            rmSync(out, { force: true });
            const child = spawn(process.execPath, vitestArgs(project, out, extra), {
              cwd: root,
              stdio: ['ignore', 'pipe', 'pipe'],
              env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '0' },
            });
            let log = '';
            child.stdout.on('data', (d) => (log += d));
            child.stderr.on('data', (d) => (log += d));
            child.on('close', (status) => {
              done.push({ label: [project, ...extra].join(' '), log, out, status });
              resolve();
            });
          }),
      ),
    Promise.resolve(),
  );
  return async () => {
    await chain;
    for (const r of done) {
      process.stdout.write(`\n== ${r.label} (ran in the background)\n${r.log}`);
      count(r.out, r.status);
    }
  };
}

/** `npm run bench:budget` (short benches): one passed or failed test per budgeted figure. */
function runBudget() {
  const out = join(root, '.budget-results.json');
  rmSync(out, { force: true });
  spawnSync(process.execPath, [join(root, 'scripts', 'bench-budget.js'), '--json', out], {
    cwd: root,
    stdio: 'inherit',
  });
  if (!existsSync(out)) {
    totals.failed += 1;
    return;
  }
  const verdicts = JSON.parse(readFileSync(out, 'utf8'));
  for (const v of verdicts) totals[v.ok ? 'passed' : 'failed'] += 1;
  rmSync(out, { force: true });
}

// The build first: the background gates run the built CLI.
const built = buildIfStale() === 0;
if (!built) totals.failed += 1;
const chromium = findChromium();
// Background (≈ 10 min, mostly sleeping: the alert gate took 13 % of one core): the alert benchmark (python3 and
// ../shared/scenarios; replays the labelled recordings in real time, ≈ 6 min), the cluster tests (prometheus and
// prometheus-alertmanager from apt; their tests fail saying so when missing), the e2e files that wait.
const background = built
  ? inBackground([['alerts', []], ['cluster', []], ...(chromium ? [['e2e', WAITING_E2E]] : [])])
  : async () => {};

runProject('unit', process.argv.slice(2));
if (built) runProject('built');

if (chromium) {
  if (built)
    runProject(
      'e2e',
      WAITING_E2E.flatMap((f) => ['--exclude', f]),
    );
} else if (process.env.CI || process.env.RLWATCH_REQUIRE_E2E) {
  process.stdout.write(
    '\ne2e: FAILED — no Chromium found; install it (apt-get install -y chromium) or set RLWATCH_CHROMIUM.\n',
  );
  totals.failed += 1;
} else {
  process.stdout.write(
    '\ne2e: NOT RUN — no Chromium found. Install it (apt-get install -y chromium) or set RLWATCH_CHROMIUM to run the browser tests.\n',
  );
}

await background();
// The performance budget (issue 22) last, with nothing else running: each figure of bench/budget.json is a test,
// failed past 2× its budget.
if (built) runBudget();

process.stdout.write(
  `\n${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}\n`,
);
process.exit(totals.failed > 0 ? 1 : 0);
