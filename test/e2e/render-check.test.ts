// End to end: the render check over every corpus run (../shared/corpus): charts, freshness and read errors as the files say.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import { ARTIFACTS, saveResults } from './render-check/artifacts';
import { checkReplayed, checkRuns, foldersOf, reportLine } from './render-check/check-runs';

/** The shared corpus beside the repository (the main checkout's ../shared/corpus), or $RLWATCH_CORPUS. */
const CORPUS =
  process.env.RLWATCH_CORPUS ??
  [join(import.meta.dirname, '..', '..', '..', 'shared', 'corpus'), '/work/shared/corpus'].find((p) =>
    existsSync(join(p, 'MANIFEST.tsv')),
  );

/** The labelled recordings and their replayer (../shared/scenarios), or $RLWATCH_SCENARIOS. */
const SCENARIOS =
  process.env.RLWATCH_SCENARIOS ??
  [join(import.meta.dirname, '..', '..', '..', 'shared', 'scenarios'), '/work/shared/scenarios'].find((p) =>
    existsSync(join(p, 'replay.py')),
  );

describe.runIf(SCENARIOS)('the render check over the labelled recordings, replayed live', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  test('every recorded trainer (crashes, restarts, blow-ups) draws what it wrote, earlier sessions included', async () => {
    const results = await checkReplayed(browser, SCENARIOS!, ARTIFACTS);
    saveResults('scenarios', results);
    // One run per recording at least (a restart stays one run).
    expect(results.length).toBeGreaterThanOrEqual(9);
    const failed = results.filter((r) => r.failures.length > 0).map(reportLine);
    expect(failed).toEqual([]);
  }, 300_000);
});

describe.runIf(CORPUS)('the render check over every corpus run', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  for (const folder of CORPUS ? foldersOf(CORPUS) : []) {
    test(`every ${folder.label} run draws what its files say (screenshots in test-results/render-check)`, async () => {
      const results = await checkRuns(browser, [folder], ARTIFACTS);
      saveResults(`corpus-${folder.label}`, results);
      expect(results.length).toBeGreaterThan(0);
      expect(results.every((r) => r.screenshot && existsSync(r.screenshot))).toBe(true);
      const failed = results.filter((r) => r.failures.length > 0).map(reportLine);
      expect(failed).toEqual([]);
    }, 300_000);
  }
});
