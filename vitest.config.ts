// Vitest projects: unit tests on the sources; 'built' checks of the built bundles; cluster (Prometheus); e2e in Chromium.
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
          exclude: ['test/e2e/**', 'test/built/**', 'test/cluster/**', 'node_modules/**'],
          environment: 'node',
          testTimeout: 30_000,
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
