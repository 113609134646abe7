// Test helper: a live `rlwatch demo` in a temporary folder served by `rlwatch serve`, plus a page error collector.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { runCli, type CliProcess } from './cli-process';

export interface DemoServer {
  url: string;
  dir: string;
  demo: CliProcess;
  serve: CliProcess;
  stop(): Promise<void>;
}

/**
 * `rlwatch serve DIR` with its own database in a temporary folder (never the per-user one: settings and
 * alerts the tests write must not leak into the user's app or into the next test run). `more`: a fixed port,
 * further arguments and environment (RLWATCH_TOKEN, to restart an endpoint at the same URL), node's own flags;
 * `command` 'agent' starts `rlwatch agent` (the API without the UI) instead of serve.
 */
export function serveIsolated(
  dir: string,
  more: {
    command?: 'serve' | 'agent';
    port?: number;
    args?: string[];
    env?: NodeJS.ProcessEnv;
    nodeArgs?: string[];
  } = {},
): { serve: CliProcess; storeDir: string } {
  const storeDir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-store-'));
  const serve = runCli(
    [more.command ?? 'serve', dir, '--port', String(more.port ?? 0), ...(more.args ?? [])],
    {
      ...process.env,
      ...more.env,
      RLWATCH_STORE: join(storeDir, 'rlwatch.db'),
    },
    more.nodeArgs,
  );
  return { serve, storeDir };
}

/** Starts the demo writing at `rateHz` steps/s and serves its folder; resolves once the page URL is printed. */
export async function startDemoServer(rateHz: number): Promise<DemoServer> {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-'));
  const demo = runCli(['demo', dir, '--rate', String(rateHz), '--steps', '100000']);
  await demo.waitFor(/writing a simulated PPO run/);
  const { serve, storeDir } = serveIsolated(dir);
  const url = await servedUrl(serve);
  return {
    url,
    dir,
    demo,
    serve,
    async stop() {
      await serve.stop();
      await demo.stop();
      // Only after the demo exited: removing the folder earlier races its writes.
      rmSync(dir, { recursive: true, force: true });
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

/** The page URL `rlwatch serve` prints once it listens. */
export async function servedUrl(serve: CliProcess, timeoutMs?: number): Promise<string> {
  return (await serve.waitFor(/(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/, timeoutMs))[1]!;
}

/** A new page of the given size with its errors collected, on `url`. */
export async function openPage(
  browser: Browser,
  url: string,
  viewport: { width: number; height: number } = { width: 1440, height: 900 },
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport });
  const errors = collectErrors(page);
  await page.goto(url);
  return { page, errors };
}

/** Collects uncaught page errors and console errors, to assert none happened. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  return errors;
}
