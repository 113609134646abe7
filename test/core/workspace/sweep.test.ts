// The workspace's sweep (re-reading sources in case a file event was missed) is bounded per tick, goes round every
// source, and on a local disk costs each source a synchronous tail read, and an unchanged one a stat alone.

import fs, {
  mkdirSync,
  mkdtempSync,
  rmSync,
  truncateSync,
  utimesSync,
  writeFileSync,
  readFileSync,
} from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { createSource } from '../../../src/core/sources/registry';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import { discover } from '../../../src/core/workspace/create';
import { Workspace } from '../../../src/core/workspace/workspace';
import { waitFor } from '../../helpers/wait-for';
import { SeriesSet } from '../../../src/core/series/series-set';
import type { LiveSource } from '../../../src/core/sources/live-source';
import { LoadProgressTracker } from '../../../src/core/workspace/load-progress';
import { RunLoader } from '../../../src/core/workspace/run-loader';
import { newRunState } from '../../../src/core/workspace/run-state';
import { liveEntry } from '../../helpers/live-entry';

function fakeSource(path: string, reads: Map<string, number>): LiveSource {
  return {
    path,
    format: 'csv',
    series: new SeriesSet(),
    records: 0,
    errors: [],
    progress: null,
    config: null,
    bytesRead: null,
    readMore: async () => void reads.set(path, (reads.get(path) ?? 0) + 1),
    close: () => {},
  };
}

test('a sweep reads at most its budget of sources and the next sweep goes on where it stopped', async () => {
  const loader = new RunLoader(
    {
      epoch: () => 1,
      isCurrent: () => true,
      emit: () => {},
      notice: () => {},
      runsChanged: () => {},
      rediscover: () => {},
      checkMemory: () => {},
    },
    new LoadProgressTracker(() => {}),
  );
  const run = newRunState('r', '/nonexistent-rlwatch-run', null);
  run.loaded = true;
  const reads = new Map<string, number>();
  const paths = ['a', 'b', 'c', 'd', 'e'].map((n) => `/nonexistent-rlwatch-run/${n}.csv`);
  for (const [i, path] of paths.entries()) {
    const live = fakeSource(path, reads);
    const entry = liveEntry({ path, name: `${i}`, format: 'csv', gen: i, live, set: live.series });
    loader.add(run, entry);
  }
  const counts = async (max: number): Promise<number[]> => {
    loader.sweep(max);
    await run.chain;
    return paths.map((p) => reads.get(p) ?? 0);
  };
  expect(await counts(2)).toEqual([1, 1, 0, 0, 0]);
  expect(await counts(2)).toEqual([1, 1, 1, 1, 0]);
  expect(await counts(2)).toEqual([1, 1, 1, 1, 1]);
  expect(await counts(2)).toEqual([2, 2, 1, 1, 1]);
  expect(await counts(2)).toEqual([2, 2, 2, 2, 1]);
  expect(await counts(2)).toEqual([2, 2, 2, 2, 2]);
  // A budget above the number of sources reads each once per sweep (the small-folder case: unchanged).
  expect(await counts(10)).toEqual([3, 3, 3, 3, 3]);
  expect(await counts(10)).toEqual([4, 4, 4, 4, 4]);
});

test("a local folder's sweep checks each event file with a synchronous tail read, never a threadpool read", async () => {
  const root = mkdtempSync(join(tmpdir(), 'rlwatch-sweep-'));
  const runs = ['a', 'b', 'c'];
  for (const r of runs) {
    mkdirSync(join(root, r));
    const w = new EventFileWriter(join(root, r), { wallTime: 1_700_000_000 });
    w.scalars(0, [{ tag: 'loss', value: 1 }], 'simple', 1_700_000_000);
    w.close();
  }
  // Every read each source is asked for, with its options (the sweep's are the only ones once the folder is read).
  const reads: { path: string; sync: boolean }[] = [];
  const ws = new Workspace({
    discover,
    sweepMs: 20,
    // No network filesystem: the folder is on a local disk.
    readMountInfo: async () => '',
    createSource: (path, format, opts) => {
      const source = createSource(path, format, opts);
      const readMore = source.readMore.bind(source);
      source.readMore = (o) => {
        reads.push({ path, sync: o?.syncTailBytes !== undefined });
        return readMore(o);
      };
      return source;
    },
  });
  try {
    await ws.open(root);
    const loaded = reads.length;
    // A sweep reads only a file written since its last read: each is touched (a new mtime) until three sweeps read.
    const touch = setInterval(() => {
      const at = Date.now() / 1000;
      for (const r of runs)
        for (const f of fs.readdirSync(join(root, r))) utimesSync(join(root, r, f), at, at);
    }, 10);
    await waitFor(() => reads.length >= loaded + 3 * runs.length, 'three sweeps').finally(() =>
      clearInterval(touch),
    );
    const swept = reads.slice(loaded);
    expect(new Set(swept.map((r) => r.path)).size).toBe(runs.length);
    expect(swept.filter((r) => !r.sync)).toEqual([]);
    expect(ws.listRuns().map((r) => r.points)).toEqual([1, 1, 1]);
  } finally {
    await ws.close();
    rmSync(root, { recursive: true, force: true });
  }
});

/** Paths opened (sync or through fs/promises) while counting: node:fs's own functions, wrapped. */
const opened: string[] = [];
const realOpenSync = fs.openSync;
const realOpen = fs.promises.open;
function countOpens(): void {
  fs.openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
    opened.push(String(path));
    return (realOpenSync as (...a: unknown[]) => number)(path, ...rest);
  }) as typeof fs.openSync;
  fs.promises.open = ((path: fs.PathLike, ...rest: unknown[]) => {
    opened.push(String(path));
    return (realOpen as (...a: unknown[]) => Promise<fs.promises.FileHandle>)(path, ...rest);
  }) as typeof fs.promises.open;
  syncBuiltinESMExports();
}
afterEach(() => {
  fs.openSync = realOpenSync;
  fs.promises.open = realOpen;
  syncBuiltinESMExports();
});

test('a local sweep opens only the sources written since their last read: appended, truncated, rewritten in place (#36)', async () => {
  const root = mkdtempSync(join(tmpdir(), 'rlwatch-sweep-stamp-'));
  const loader = new RunLoader(
    {
      epoch: () => 1,
      isCurrent: () => true,
      emit: () => {},
      notice: () => {},
      runsChanged: () => {},
      rediscover: () => {},
      checkMemory: () => {},
    },
    new LoadProgressTracker(() => {}),
  );
  const run = newRunState('r', root, null);
  const names = ['a', 'b', 'c'];
  const writers = names.map((n) => {
    const w = new EventFileWriter(root, { fileName: `events.out.tfevents.1.${n}`, wallTime: 1_700_000_000 });
    w.scalars(0, [{ tag: 'loss', value: 1 }], 'simple', 1_700_000_000);
    w.flush();
    return w;
  });
  const entries = writers.map((w, i) => {
    const live = createSource(w.path, 'tfevents', {});
    return liveEntry({ path: w.path, name: names[i]!, format: 'tfevents', gen: i, live, set: live.series });
  });
  for (const e of entries) loader.add(run, e);
  const points = (i: number): number => entries[i]!.live.series.pointCount();
  try {
    await loader.loadRun(run);
    run.loaded = true;
    countOpens();
    /** The files one sweep opened (each source's name). */
    const sweep = async (): Promise<string[]> => {
      opened.length = 0;
      loader.sweep(10, { syncTail: true });
      await run.chain;
      return names.filter((_, i) => opened.includes(writers[i]!.path));
    };
    // The first sweep reads every source (nothing stamped yet); then nothing changed, nothing is opened.
    expect(await sweep()).toEqual(names);
    expect(await sweep()).toEqual([]);
    expect(await sweep()).toEqual([]);
    // An append to b: only b is opened, and its new point is read.
    writers[1]!.scalars(1, [{ tag: 'loss', value: 2 }], 'simple', 1_700_000_001);
    writers[1]!.flush();
    expect(await sweep()).toEqual(['b']);
    expect(points(1)).toBe(2);
    expect(await sweep()).toEqual([]);
    // a rewritten in place, the same size, a new mtime: opened.
    const bytes = readFileSync(writers[0]!.path);
    writeFileSync(writers[0]!.path, bytes);
    utimesSync(writers[0]!.path, 1_700_000_100, 1_700_000_100);
    expect(await sweep()).toEqual(['a']);
    expect(await sweep()).toEqual([]);
    // c truncated: opened, and its reader starts over (the old points kept as a dead source).
    truncateSync(writers[2]!.path, 0);
    expect(await sweep()).toContain('c');
    expect(run.entries.filter((e) => e.state === 'dead').map((e) => e.name)).toEqual(['c']);
    expect(points(0)).toBe(1);
  } finally {
    for (const w of writers) w.close();
    loader.closeAll();
    rmSync(root, { recursive: true, force: true });
  }
});
