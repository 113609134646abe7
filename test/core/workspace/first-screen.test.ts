// Opening a folder of many runs: what runs before the first run is announced (the first screen waits on it, #36).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createSource } from '../../../src/core/sources/registry';
import { discover } from '../../../src/core/workspace/create';
import { Workspace } from '../../../src/core/workspace/workspace';
import type { Discover, SourceFactory } from '../../../src/core/workspace/ports';
import { EARLY_RUNS } from '../../../src/core/workspace/rediscovery';
import { MAX_SWEEP_SCAN } from '../../../src/shared/compare/sweep';
import { waitFor } from '../../helpers/wait-for';

let ws: Workspace | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await ws?.close();
  ws = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A folder of `n` runs, each a folder with a small CSV. */
function runsFolder(n: number): string {
  const root = mkdtempSync(join(tmpdir(), 'rlwatch-first-screen-'));
  dirs.push(root);
  for (let i = 0; i < n; i++) {
    mkdirSync(join(root, `run_${i}`));
    writeFileSync(join(root, `run_${i}`, 'metrics.csv'), `step,x\n1,${i}\n2,${i + 1}\n`);
  }
  return root;
}

describe('opening a folder', () => {
  test("the watcher starts once the first run is announced: its scan of every folder is not on the first screen's path", async () => {
    const root = runsFolder(3);
    const watchedAt: Record<string, number> = {};
    const find: Discover = async (r, keep) => {
      watchedAt.discovery ??= ws!.watchedFolderCount();
      return discover(r, keep);
    };
    ws = new Workspace({ discover: find, createSource });
    ws.on('runs.changed', (runs) => {
      if (runs.some((r) => r.loaded)) watchedAt.firstRun ??= ws!.watchedFolderCount();
    });
    await ws.open(root);
    expect(watchedAt).toEqual({ discovery: 0, firstRun: 0 });
    // Then it follows the folder and every run folder.
    expect(ws.watchedFolderCount()).toBe(4);
  });

  test('a run folder made while the folder is being discovered is still found once the watcher starts', async () => {
    const root = runsFolder(2);
    let calls = 0;
    const find: Discover = async (r, keep) => {
      const found = await discover(r, keep);
      if (calls++ === 0) {
        mkdirSync(join(root, 'run_new'));
        writeFileSync(join(root, 'run_new', 'metrics.csv'), 'step,x\n1,1\n');
      }
      return found;
    };
    ws = new Workspace({ discover: find, createSource });
    await ws.open(root);
    await waitFor(() => ws!.hasRun('run_new'), 'the run made during discovery');
    expect(ws.listRuns().map((r) => r.run)).toEqual(['run_0', 'run_1', 'run_new']);
  });

  test('a slow first read does not hold back the list of runs found: it is listed unread meanwhile', async () => {
    const root = runsFolder(3);
    let release!: () => void;
    const held = new Promise<void>((res) => (release = res));
    const slowFirst: SourceFactory = (path, format, opts) => {
      const source = createSource(path, format, opts);
      if (!path.includes(`${sep}run_0${sep}`)) return source;
      const readMore = source.readMore.bind(source);
      source.readMore = async (o) => {
        await held;
        return readMore(o);
      };
      return source;
    };
    ws = new Workspace({ discover, createSource: slowFirst, watch: false });
    const lists: boolean[][] = [];
    ws.on('runs.changed', (runs) => lists.push(runs.map((r) => r.loaded)));
    const opened = ws.open(root, { until: 'first-run' });
    await waitFor(() => lists.length > 0, 'the list of runs found');
    expect(lists).toEqual([[false, false, false]]);
    release();
    await opened;
    expect(lists.at(-1)).toEqual([true, false, false]);
  });

  test('the first runs found are listed and the first is read before the walk of the rest ends (#36)', async () => {
    const n = EARLY_RUNS + 50;
    const root = runsFolder(n);
    let readFirst!: () => void;
    const firstRead = new Promise<void>((res) => (readFirst = res));
    let walkEnded = false;
    let readBeforeWalkEnded: boolean | null = null;
    const find: Discover = async (r, keep, localDisk, early) => {
      const found = await discover(r, keep, localDisk, early);
      // The walk's answer waits (2 s at most) for the first run's read: it comes only if it need not wait for this.
      await Promise.race([firstRead, new Promise((res) => setTimeout(res, 2000))]);
      walkEnded = true;
      return found;
    };
    ws = new Workspace({ discover: find, createSource, watch: false });
    const lists: { run: string; loaded: boolean }[][] = [];
    const reads: string[] = [];
    ws.on('runs.changed', (runs) => lists.push(runs.map((r) => ({ run: r.run, loaded: r.loaded }))));
    ws.on('run.read', (run) => {
      reads.push(run);
      readBeforeWalkEnded ??= !walkEnded;
      readFirst();
    });
    await ws.open(root);
    expect(readBeforeWalkEnded).toBe(true);
    const all = Array.from({ length: n }, (_, i) => `run_${i}`).sort();
    // The first list: the runs found first, in name order, the first of all read; then every run, every one read,
    // each once and in name order.
    const first = lists[0]!.map((r) => r.run);
    expect(first.length).toBeGreaterThanOrEqual(EARLY_RUNS);
    expect(first.length).toBeLessThan(n);
    // More than a page scans for a sweep: a partial list is never overlaid as one.
    expect(first.length).toBeGreaterThan(MAX_SWEEP_SCAN);
    expect(first).toEqual(all.slice(0, first.length));
    expect(lists[0]![0]).toEqual({ run: all[0], loaded: true });
    expect(ws.listRuns().map((r) => ({ run: r.run, loaded: r.loaded }))).toEqual(
      all.map((run) => ({ run, loaded: true })),
    );
    expect(reads).toEqual(all);
  });

  test('the walk of the rest waits for restAfter once the first runs are listed and the first is read (#36)', async () => {
    const n = EARLY_RUNS + 50;
    const root = runsFolder(n);
    let release!: () => void;
    const rest = new Promise<void>((res) => (release = res));
    ws = new Workspace({ discover, createSource, watch: false });
    const opened = ws.open(root, { restAfter: () => rest });
    await waitFor(() => ws!.listRuns()[0]?.loaded === true, 'the first run read');
    // Held: the early runs only, however long it waits.
    await new Promise((res) => setTimeout(res, 200));
    const held = ws.listRuns().length;
    expect(held).toBeGreaterThanOrEqual(EARLY_RUNS);
    expect(held).toBeLessThan(n);
    // …and the first of them alone read: the others are read with the rest, after it.
    expect(
      ws
        .listRuns()
        .filter((r) => r.loaded)
        .map((r) => r.run),
    ).toEqual(['run_0']);
    release();
    await opened;
    expect(ws.listRuns()).toHaveLength(n);
    expect(ws.listRuns().every((r) => r.loaded)).toBe(true);
  });
});
