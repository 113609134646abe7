// The built `rlwatch serve`'s start-up (#36): what it loads before printing its URL, and that the URL answers at once.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { CLI, runCli } from '../e2e/cli-process';
import { apiOf } from '../e2e/socket-api';

/** The files the built `serve` command evaluates before it runs (its chunk's static imports, transitively): each
 * file, the packages they import by name and the source modules bundled in them (rollup's `// src/…` markers). */
function serveStartupGraph(): { packages: string[]; modules: string[] } {
  const chunk = /import\("(\.\/chunks\/serve-command-[^"]+\.js)"\)/.exec(readFileSync(CLI, 'utf8'));
  expect(chunk, 'out/main/cli.js loads the serve command as a chunk of its own').not.toBeNull();
  const seen = new Set<string>();
  const packages = new Set<string>();
  const modules: string[] = [];
  const queue = [resolve(dirname(CLI), chunk![1]!)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^import\s+(?:[^'"]*?\s+from\s+)?["']([^"']+)["']/gm)) {
      if (m[1]!.startsWith('.')) queue.push(resolve(dirname(file), m[1]!));
      else if (!m[1]!.startsWith('node:')) packages.add(m[1]!);
    }
    for (const m of text.matchAll(/^\/\/ (src\/\S+)$/gm)) modules.push(m[1]!);
  }
  return { packages: [...packages].sort(), modules };
}

test('before its URL, serve loads no package from node_modules, nor the WebSocket API, its contract or the samples search', () => {
  const { packages, modules } = serveStartupGraph();
  // Bundled or loaded later: a package's files resolved and read one by one cost serve ≈ 0.2 s (zod alone is 71).
  expect(packages).toEqual([]);
  // What serve does before printing its URL is there (a check that the walk reads the chunks)…
  expect(modules).toEqual(expect.arrayContaining(['src/cli/host.ts', 'src/core/server/serve.ts']));
  // …and the socket API, with the contract's schemas, loads behind the URL; the samples search (re2js) on its first use.
  expect(modules).not.toContain('src/core/server/socket-client.ts');
  expect(modules).not.toContain('src/shared/contract.ts');
  expect(modules).not.toContain('src/shared/user-regex.ts');
});

const folder = mkdtempSync(join(tmpdir(), 'rlwatch-serve-startup-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

test('the URL answers as soon as it is printed: the page, then a request over the socket', async () => {
  writeFileSync(join(folder, 'progress.csv'), 'step,loss\n1,0.5\n2,0.4\n');
  const serve = runCli(['serve', folder, '--port', '0'], { ...process.env, RLWATCH_STORE: 'memory' });
  try {
    const [url] = await serve.waitFor(/http:\/\/\S+\?token=\S+/);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    const api = await apiOf(url);
    try {
      const runs = await api.ask<{ run: string }[]>('runs.list', {});
      expect(runs.ok).toBe(true);
      expect(runs.value).toHaveLength(1);
    } finally {
      api.close();
    }
  } finally {
    await serve.stop();
  }
});
