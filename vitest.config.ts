// Vitest projects: unit tests on the sources; 'built' checks of the built bundles; cluster (Prometheus); e2e in Chromium;
// 'alerts' the alert benchmark's CI gate (score.py on the labelled recordings, real time, ≈ 6 min).
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Nothing a test starts (CLI children inherit the environment) may touch the user's real database.
process.env.RLWATCH_STORE ??= 'memory';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/built/**', 'test/cluster/**', 'test/alerts/**', 'node_modules/**'],
          environment: 'node',
          testTimeout: 30_000,
          // Vitest's default is one worker per core less one: one worker on a 2-core CI machine, idle while its
          // tests wait on child processes and files. Two keep both cores busy (#36).
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
