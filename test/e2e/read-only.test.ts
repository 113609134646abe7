// The read-only promise: inspect, watch and serve with a browser change no byte, mode or time of any run file.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import { CLI, runCli } from './cli-process';
import { servedUrl, serveIsolated } from './demo-server';
import { TrackioDb } from '../helpers/tracker-dbs';

const repo = join(import.meta.dirname, '..', '..');
/** Every real run of the corpus (beside the repo in this workplace and in CI); the committed copies otherwise. */
const corpus = existsSync(join(repo, '..', 'shared', 'corpus'))
  ? join(repo, '..', 'shared', 'corpus')
  : join(repo, 'test', 'fixtures');

interface Entry {
  kind: 'file' | 'dir' | 'link';
  size: number;
  mode: number;
  mtimeMs: number;
  ctimeMs: number;
  sha256: string | null;
}

/** Everything that could change: content, size, permission bits, modification and change times. */
function snapshot(root: string): Map<string, Entry> {
  const out = new Map<string, Entry>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const st = lstatSync(path);
      const kind = st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : 'file';
      out.set(relative(root, path), {
        kind,
        size: st.size,
        mode: st.mode,
        mtimeMs: st.mtimeMs,
        ctimeMs: st.ctimeMs,
        sha256: kind === 'file' ? createHash('sha256').update(readFileSync(path)).digest('hex') : null,
      });
      if (kind === 'dir') walk(path);
    }
  };
  walk(root);
  return out;
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('rlwatch never writes into a run folder', () => {
  test('inspect, watch and serve + Chromium over a copy of every corpus run leave it byte, mode and time exact', async () => {
    const root = mkdtempSync(join(tmpdir(), 'rlwatch-readonly-'));
    dirs.push(root);
    for (const group of ['tfevents', 'wandb', 'progress']) {
      if (existsSync(join(corpus, group)))
        cpSync(join(corpus, group), join(root, group), { recursive: true, preserveTimestamps: true });
    }
    // MLflow's file stores and a real mlflow.db (a SQLite database read-only: no -journal, -wal or -shm made).
    cpSync(join(repo, 'test', 'fixtures', 'mlflow'), join(root, 'mlflow'), {
      recursive: true,
      preserveTimestamps: true,
    });
    // A trackio project in WAL mode whose writer has closed (no -wal): SQLite would make -wal and -shm to read it.
    mkdirSync(join(root, 'trackio'));
    const trackio = new TrackioDb(join(root, 'trackio', 'project.db'));
    for (let step = 0; step < 50; step++)
      trackio.log({ id: 'r1', name: 'ppo' }, step, { loss: 1 / (step + 1) }, 1.7e15 + step);
    trackio.close();
    const before = snapshot(root);
    expect(before.size).toBeGreaterThan(20);

    const inspect = spawnSync(process.execPath, [CLI, 'inspect', root, '--json'], { encoding: 'utf8' });
    expect(inspect.status).toBe(0);
    expect(JSON.parse(inspect.stdout).runs.length).toBeGreaterThan(5);

    const watch = runCli(['watch', root, '--json', '--no-system'], {
      ...process.env,
      RLWATCH_STORE: 'memory',
    });
    await watch.waitFor(/"type":"scalars"/, 60_000);
    await watch.stop();

    const { serve, storeDir } = serveIsolated(root);
    dirs.push(storeDir);
    const url = await servedUrl(serve, 60_000);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      await page.goto(url);
      const runs = page.locator('.run-list button[data-run]');
      await runs.first().waitFor();
      // Open a few runs of each kind so their charts load their windows.
      const count = await runs.count();
      for (let i = 0; i < count; i += Math.max(1, Math.floor(count / 8))) {
        await runs.nth(i).click();
        await page
          .locator('figure.chart')
          .first()
          .waitFor({ timeout: 30_000 })
          .catch(() => {});
      }
    } finally {
      await browser.close();
      await serve.stop();
    }

    const after = snapshot(root);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    const changed = [...before]
      .filter(([k, v]) => JSON.stringify(after.get(k)) !== JSON.stringify(v))
      .map(([k]) => k);
    expect(changed).toEqual([]);
  });
});
