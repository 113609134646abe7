// `npm test`: unit tests, the app build, checks of the built bundles, cluster tests, the alert benchmark's gate, e2e in
// Chromium; ends "N passed, M failed".
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildIfStale, root } from './lib/build.js';
import { findChromium } from '../test/e2e/chromium-path.js';

const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const totals = { passed: 0, failed: 0, skipped: 0 };
/** Wall time of each step, printed before the last line (CI time is a #36 target). */
const took = [];

/** Runs `step` and notes how long it took under `name`. */
function timed(name, step) {
  const started = Date.now();
  const result = step();
  took.push(`${name} ${((Date.now() - started) / 60_000).toFixed(1)} min`);
  return result;
}

function runProject(project, extra = []) {
  const out = join(root, `.vitest-results.json`);
  rmSync(out, { force: true });
  const r = spawnSync(
    process.execPath,
    [
      vitest,
      'run',
      '--project',
      project,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${out}`,
      ...extra,
    ],
    { cwd: root, stdio: 'inherit' },
  );
  if (!existsSync(out)) {
    // The run died before reporting (syntax error, crash): count it as one failure, never as nothing.
    totals.failed += 1;
    return;
  }
  const report = JSON.parse(readFileSync(out, 'utf8'));
  totals.passed += report.numPassedTests;
  totals.failed += report.numFailedTests + (r.status !== 0 && report.numFailedTests === 0 ? 1 : 0);
  totals.skipped += report.numPendingTests + (report.numTodoTests ?? 0);
  rmSync(out, { force: true });
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

timed('unit', () => runProject('unit', process.argv.slice(2)));

const built = timed('build', () => buildIfStale()) === 0;
if (!built) totals.failed += 1;
else {
  timed('built', () => runProject('built'));
  // Needs prometheus and prometheus-alertmanager (apt): its tests fail saying so when they are missing.
  timed('cluster', () => runProject('cluster'));
  // The alert benchmark (issue 20): python3 and ../shared/scenarios; its test fails saying so when either is missing.
  // Replays the labelled recordings in real time: ≈ 6 min.
  timed('alerts', () => runProject('alerts'));
  // The performance budget (issue 22): each figure of bench/budget.json is a test, failed past 2× its budget.
  timed('budget', () => runBudget());
}

const chromium = findChromium();
if (chromium) {
  if (built) timed('e2e', () => runProject('e2e'));
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

process.stdout.write(`\ntime: ${took.join(', ')}\n`);
process.stdout.write(
  `\n${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}\n`,
);
process.exit(totals.failed > 0 ? 1 : 0);
