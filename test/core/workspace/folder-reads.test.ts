// Opening a folder of many runs touches the disk as little as it can (#36): each run folder listed once, small files' heads read once.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type * as Fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as FsPromises from 'node:fs/promises';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';

/** Every folder listed (through node:fs/promises or node:fs), and every file opened through node:fs/promises. */
const seen = vi.hoisted(() => ({ readdir: [] as string[], opened: [] as string[], stats: [] as string[] }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FsPromises>();
  const readdir = ((path: string, ...rest: unknown[]) => {
    seen.readdir.push(String(path));
    return (fs.readdir as (...a: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.readdir;
  const open = ((path: string, ...rest: unknown[]) => {
    seen.opened.push(String(path));
    return (fs.open as (...a: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.open;
  const stat = ((path: string, ...rest: unknown[]) => {
    seen.stats.push(String(path));
    return (fs.stat as (...a: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.stat;
  return { ...fs, readdir, open, stat };
});

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  const readdirSync = ((path: string, ...rest: unknown[]) => {
    seen.readdir.push(String(path));
    return (fs.readdirSync as (...a: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.readdirSync;
  return { ...fs, readdirSync };
});

let ws: Workspace | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await ws?.close();
  ws = null;
  seen.readdir.length = 0;
  seen.opened.length = 0;
  seen.stats.length = 0;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A folder of `n` runs, each a folder with a small CSV; run_1 also has a config.json, run_2 a Hydra config. */
function runsFolder(n: number): string {
  const root = mkdtempSync(join(tmpdir(), 'rlwatch-folder-reads-'));
  dirs.push(root);
  for (let i = 0; i < n; i++) {
    mkdirSync(join(root, `run_${i}`));
    writeFileSync(join(root, `run_${i}`, 'metrics.csv'), `step,x\n1,${i}\n2,${i + 1}\n`);
  }
  writeFileSync(join(root, 'run_1', 'config.json'), JSON.stringify({ lr: 0.1 }));
  mkdirSync(join(root, 'run_2', '.hydra'));
  writeFileSync(join(root, 'run_2', '.hydra', 'config.yaml'), 'lr: 0.2\n');
  return root;
}

describe('opening a folder of many runs', () => {
  test('opening 300 runs lists each run folder once: their configs are found from the walk', async () => {
    const root = runsFolder(300);
    ws = createWorkspace({ watch: false });
    await ws.open(root);
    expect(ws.listRuns()).toHaveLength(300);
    const perFolder = new Map<string, number>();
    for (const p of seen.readdir) perFolder.set(p, (perFolder.get(p) ?? 0) + 1);
    for (let i = 0; i < 300; i++) expect(perFolder.get(join(root, `run_${i}`)), `run_${i}`).toBe(1);
    expect(ws.configOf('run_0')).toBeNull();
    expect(ws.configOf('run_1')).toEqual({ lr: 0.1 });
    expect(ws.configOf('run_2')).toEqual({ lr: 0.2 });
  });

  test('on a local disk the walk reads no metrics file through the threadpool: heads are read with synchronous calls', async () => {
    const root = runsFolder(50);
    ws = createWorkspace({ watch: false });
    let atFirstList: string[] | null = null;
    ws.on('runs.changed', () => void (atFirstList ??= [...seen.opened]));
    await ws.open(root);
    expect(ws.listRuns().map((r) => r.sources.map((s) => s.format))).toEqual(Array(50).fill(['csv']));
    // Before the first list, only the first run's file is opened (its read), not one per run to classify it.
    expect(atFirstList!.filter((p) => p.endsWith('metrics.csv')).length).toBeLessThanOrEqual(1);
  });

  test("on a local disk new sources' sizes are stat'ed with synchronous calls, not one threadpool call each", async () => {
    const root = runsFolder(50);
    ws = createWorkspace({ watch: false });
    let atFirstList: string[] | null = null;
    ws.on('runs.changed', () => void (atFirstList ??= [...seen.stats]));
    await ws.open(root);
    expect(ws.listRuns().map((r) => r.run)).toHaveLength(50);
    // Before the first list only the first run's read stats its file.
    expect(atFirstList!.filter((p) => p.endsWith('metrics.csv')).length).toBeLessThanOrEqual(2);
  });
});
