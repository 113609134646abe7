// End to end: over serve, the page's run list after its first list comes as changes (#36), and shows every run in order.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { servedUrl, serveIsolated } from './demo-server';

const writeRun = (dir: string, name: string): void => {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, 'metrics.csv'), 'step,reward\n0,1\n1,2\n2,3\n');
};

describe('the run list as changes', () => {
  let dir: string;
  let serve: CliProcess;
  let storeDir: string;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  /** Each runs.changed the page received: a whole list, or a change of one (its `base`). */
  const pushes: ('whole' | 'change')[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-list-'));
    for (const name of ['run_b', 'run_d']) writeRun(dir, name);
    ({ serve, storeDir } = serveIsolated(dir));
    const url = await servedUrl(serve);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('websocket', (ws) =>
      ws.on('framereceived', ({ payload }) => {
        const m = JSON.parse(String(payload)) as { event?: string; payload?: unknown };
        if (m.event !== 'runs.changed') return;
        const p = m.payload as { base?: number | null };
        pushes.push(Array.isArray(p) || p.base === null ? 'whole' : 'change');
      }),
    );
    await page.goto(url);
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  const rows = (): Promise<(string | null)[]> =>
    page
      .locator('.run-list button.run-select[data-run]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-run')));

  test('runs made while the page is open come as changes and take their place in the list', async () => {
    await expect.poll(rows, { timeout: 30_000 }).toEqual(['run_b', 'run_d']);
    writeRun(dir, 'run_a');
    writeRun(dir, 'run_c');
    await expect.poll(rows, { timeout: 30_000 }).toEqual(['run_a', 'run_b', 'run_c', 'run_d']);
    expect(pushes).toContain('change');
    expect(errors).toEqual([]);
  });
});
