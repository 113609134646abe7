// Vitest projects: unit tests on the sources; 'built' checks of the built bundles; cluster (Prometheus); e2e in Chromium;
// 'alerts' the alert benchmark's CI gate (score.py on the labelled recordings, real time, ≈ 6 min).
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Nothing a test starts (CLI children inherit the environment) may touch the user's real database.
process.env.RLWATCH_STORE ??= 'memory';

const NOT_UNIT = ['test/e2e/**', 'test/built/**', 'test/cluster/**', 'test/alerts/**', 'node_modules/**'];
/**
 * Unit test files that run in a module graph of their own, found here so a new one is never missed: every file that
 * replaces a module (`vi.mock`, `vi.doMock`: the replacement would leak into the next file of a shared graph); the
 * fuzz tests (hundreds of thousands of inputs through one decoder: in a graph other files' inputs have made
 * polymorphic they ran 2–3× slower and passed their timeouts); and a module's first-load behaviour under test.
 */
const ISOLATED_UNIT = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .map((f) => join('test', f).split('\\').join('/'))
  .filter((f) => f.endsWith('.test.ts') && !/^test\/(?:e2e|built|cluster|alerts)\//.test(f))
  .filter(
    (f) =>
      /(?:^|[/-])fuzz[^/]*\.test\.ts$/.test(f) ||
      f === 'test/renderer/lib/user-regex-loader.test.ts' ||
      // Busy processes started and waited for: it passed its 30 s once in a shared graph's CI (not reproduced).
      f === 'test/scripts/contention.test.ts' ||
      /\bvi\.(?:do)?[mM]ock\(/.test(readFileSync(f, 'utf8')),
  )
  .sort();

export default defineConfig({
  test: {
    projects: [
      {
        // The unit tests share their workers' module graphs (#36: CI time): a worker imports src/ once, not once per
        // file (import time 54 → 12 s, the suite's CPU halved on test/core/app and workspace).
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...NOT_UNIT, ...ISOLATED_UNIT],
          environment: 'node',
          testTimeout: 30_000,
          isolate: false,
          setupFiles: ['test/helpers/shared-graph-setup.ts'],
          // Vitest's default is one worker per core less one: one worker on a 2-core CI machine, idle while its
          // tests wait on child processes and files. Two keep both cores busy (#36).
          maxWorkers: Math.max(2, availableParallelism() - 1),
        },
      },
      {
        // The unit tests that replace modules (vi.mock) or need a fresh module graph each: one per file, as before.
        test: {
          name: 'unit-isolated',
          include: ISOLATED_UNIT,
          environment: 'node',
          // The fuzz tests' 20–100k inputs take 8–34 s beside CI's lanes and passed 30 s at load 12.
          testTimeout: 120_000,
          maxWorkers: Math.max(2, availableParallelism() - 1),
        },
      },
      {
        test: {
          name: 'built',
          include: ['test/built/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Real Prometheus and Alertmanager (Debian's packages) scraping the built CLI's `rlwatch agent`.
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        // ../shared/scenarios/score.py (python3) replaying every labelled recording under the built CLI's
        // `watch --json`: the recordings replay in real time, in parallel (the longest ≈ 5 min plus its tail).
        test: {
          name: 'alerts',
          include: ['test/alerts/**/*.test.ts'],
          environment: 'node',
          testTimeout: 12 * 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // The page updates on frames and debounced handlers (zoom completes after 250 ms): a loaded CI
          // machine needs more than expect.poll's 1 s default.
          expect: { poll: { timeout: 15_000, interval: 50 } },
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
