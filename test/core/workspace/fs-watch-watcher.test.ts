// Plain fs.watch on a local Linux disk: an append lists no folder again; new runs, new files, rotation, deletion,
// truncation and a run folder moved away are still seen (no sweep); chokidar where fs.watch is not trusted or refused.

import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
  type watch,
} from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createSource } from '../../../src/core/sources/registry';
import { discover } from '../../../src/core/workspace/create';
import { FsWatchFolderWatcher, type WatchFallback } from '../../../src/core/workspace/fs-watch-watcher';
import { fsWatchTrusted } from '../../../src/core/workspace/mount-info';
import { watchLimitNotice } from '../../../src/core/workspace/watcher-choice';
import { Workspace, type WorkspaceOptions } from '../../../src/core/workspace/workspace';
import type { AppNotice } from '../../../src/shared/domain';
import { waitFor } from '../../helpers/wait-for';

const onLinux = process.platform === 'linux';
let ws: Workspace | null = null;
let watcher: FsWatchFolderWatcher | null = null;
const dirs: string[] = [];
const restores: (() => void)[] = [];
afterEach(async () => {
  for (const r of restores.splice(0)) r();
  await ws?.close();
  await watcher?.close();
  ws = null;
  watcher = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rows = (from: number, to: number): string => {
  let s = '';
  for (let i = from; i <= to; i++) s += `${i},${i / 10}\n`;
  return s;
};

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'rlwatch-fsw-'));
  dirs.push(d);
  return d;
}

/** A workspace with no sweep (every read is one a file event asked for) on a local disk. */
function workspace(opts: Partial<WorkspaceOptions> = {}): Workspace {
  ws = new Workspace({
    discover,
    createSource,
    sweepMs: 3_600_000,
    readMountInfo: async () => '27 1 259:2 / / rw,relatime - ext4 /dev/sda1 rw',
    ...opts,
  });
  return ws;
}

const steps = (run: string, tag = 'loss'): number[] => [
  ...(ws!.getWindow(run, tag, { pixels: 10_000 })?.steps ?? []),
];

/** Counts the folder listings and lstat calls under `dir`, whoever makes them (chokidar's and readdirp's imports of
 * node:fs/promises see the wrapped functions: builtin exports are synced into their ESM bindings). */
function countListings(dir: string): { listings: number; lstats: number } {
  const require = createRequire(import.meta.url);
  const fsp = require('node:fs/promises') as Record<string, unknown>;
  const fs = require('node:fs') as Record<string, unknown>;
  const counts = { listings: 0, lstats: 0 };
  const wrap = (mod: Record<string, unknown>, name: string, key: 'listings' | 'lstats'): void => {
    const original = mod[name] as (...a: unknown[]) => unknown;
    mod[name] = function (this: unknown, ...a: unknown[]) {
      if (typeof a[0] === 'string' && (a[0] === dir || a[0].startsWith(dir + '/'))) counts[key]++;
      return original.apply(this, a);
    };
    restores.push(() => {
      mod[name] = original;
      syncBuiltinESMExports();
    });
  };
  for (const mod of [fsp, fs]) {
    wrap(mod, 'readdir', 'listings');
    wrap(mod, 'opendir', 'listings');
    wrap(mod, 'lstat', 'lstats');
  }
  wrap(fs, 'readdirSync', 'listings');
  wrap(fs, 'opendirSync', 'listings');
  wrap(fs, 'lstatSync', 'lstats');
  syncBuiltinESMExports();
  return counts;
}

describe.runIf(onLinux)('on a local Linux disk', () => {
  test('an append is read from the file fs.watch names: its run folder is not listed again, nor its entries lstat-ed', async () => {
    const root = tmp();
    const runDir = join(root, 'run');
    mkdirSync(runDir);
    // A run folder of a few files, as trainers leave them.
    for (const f of ['config.json', 'stdout.log', 'notes.txt']) writeFileSync(join(runDir, f), '{}\n');
    const csv = join(runDir, 'metrics.csv');
    writeFileSync(csv, `step,loss\n${rows(0, 0)}`);
    await workspace().open(root);
    await sleep(300);
    const counted = countListings(runDir);
    for (let step = 1; step <= 5; step++) {
      appendFileSync(csv, rows(step, step));
      await waitFor(() => steps('run').length === step + 1, `step ${step}`, 5000);
      // Past chokidar's 1 s listing throttle now and then: each append could be listed again.
      await sleep(step % 2 === 0 ? 1100 : 100);
    }
    expect(steps('run')).toEqual([0, 1, 2, 3, 4, 5]);
    expect(counted).toEqual({ listings: 0, lstats: 0 });
  });

  test('new runs, new files in a run, deletion, rotation and truncation are seen without a sweep', async () => {
    const root = tmp();
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a', 'metrics.csv'), `step,loss\n${rows(0, 4)}`);
    workspace();
    await ws!.open(root);
    expect(ws!.watcherKind()).toBe('fs.watch');
    // A new run folder, its file written after the folder appeared.
    mkdirSync(join(root, 'b'));
    await sleep(100);
    writeFileSync(join(root, 'b', 'metrics.csv'), `step,loss\n${rows(0, 2)}`);
    await waitFor(() => ws!.hasRun('b') && steps('b').length === 3, 'the new run b', 10_000);
    // A new file in a known run.
    writeFileSync(join(root, 'a', 'eval.csv'), `step,acc\n${rows(0, 1)}`);
    await waitFor(() => steps('a', 'acc').length === 2, 'the new file of run a', 10_000);
    // Rotation: renamed away, a new file at its path.
    const jsonl = join(root, 'b', 'log.jsonl');
    writeFileSync(jsonl, [0, 1].map((s) => JSON.stringify({ step: s, reward: s })).join('\n') + '\n');
    await waitFor(() => steps('b', 'reward').length === 2, 'the jsonl', 10_000);
    renameSync(jsonl, join(root, 'b', 'log.jsonl.1'));
    writeFileSync(jsonl, [2, 3].map((s) => JSON.stringify({ step: s, reward: s })).join('\n') + '\n');
    await waitFor(() => steps('b', 'reward').length === 4, 'the rotated points', 10_000);
    expect(
      ws!
        .runInfoOf('b')!
        .sources.filter((s) => s.file === 'log.jsonl')
        .map((s) => s.dead),
    ).toEqual([true, false]);
    // Truncated in place and rewritten: the earlier contents stay as a session.
    truncateSync(join(root, 'a', 'metrics.csv'), 0);
    appendFileSync(join(root, 'a', 'metrics.csv'), `step,loss\n${rows(0, 1)}`);
    await waitFor(() => steps('a').length === 2, 'the truncated file', 10_000);
    expect(ws!.getWindow('a', 'loss', { pixels: 99 })!.sessions.map((s) => s.points)).toEqual([5, 2]);
    // Deleted: a dead source, its data kept.
    unlinkSync(join(root, 'a', 'eval.csv'));
    await waitFor(
      () => ws!.runInfoOf('a')!.sources.find((s) => s.file === 'eval.csv')?.dead === true,
      'the deleted file dead',
      10_000,
    );
    expect(steps('a', 'acc')).toEqual([0, 1]);
  });

  test("a write to a file no source could be (a trainer's stdout.log) walks nothing; a new CSV still does (#36)", async () => {
    const root = tmp();
    const runDir = join(root, 'run');
    mkdirSync(runDir);
    const log = join(runDir, 'stdout.log');
    writeFileSync(log, 'starting\n');
    const csv = join(runDir, 'metrics.csv');
    writeFileSync(csv, `step,loss\n${rows(0, 0)}`);
    let walks = 0;
    workspace({
      discover: (...a) => {
        walks++;
        return discover(...a);
      },
    });
    await ws!.open(root);
    await ws!.whenLoaded();
    await sleep(300);
    const before = walks;
    for (let step = 1; step <= 5; step++) {
      appendFileSync(log, `step ${step}\n`);
      appendFileSync(csv, rows(step, step));
      await waitFor(() => steps('run').length === step + 1, `step ${step}`, 5000);
      await sleep(100);
    }
    await sleep(300);
    // Before: each write to stdout.log walked the folder again (5 here; a full walk each time at 10k runs).
    expect(walks - before).toBe(0);
    // A file that may be a source still makes a walk, and is read.
    writeFileSync(join(runDir, 'eval.csv'), `step,acc\n${rows(0, 2)}`);
    await waitFor(() => steps('run', 'acc').length === 3, 'the new CSV', 5000);
    expect(walks - before).toBeGreaterThan(0);
  });

  test('a run folder moved out of the opened folder: its sources die, with no file event of their own', async () => {
    const root = tmp();
    const away = tmp();
    mkdirSync(join(root, 'run'));
    writeFileSync(join(root, 'run', 'metrics.csv'), `step,loss\n${rows(0, 2)}`);
    workspace();
    await ws!.open(root);
    const before = ws!.watchedFolderCount();
    renameSync(join(root, 'run'), join(away, 'run'));
    await waitFor(() => ws!.runInfoOf('run')!.sources[0]!.dead, 'the moved run dead', 10_000);
    expect(ws!.watchedFolderCount()).toBe(before - 1);
    // Moved back: its folder is watched again (a file written there now is read).
    renameSync(join(away, 'run'), join(root, 'run'));
    await waitFor(() => ws!.watchedFolderCount() === before, 'the run folder watched again', 10_000);
    await sleep(100);
    writeFileSync(join(root, 'run', 'eval.csv'), `step,acc\n${rows(0, 3)}`);
    await waitFor(() => steps('run', 'acc').length === 4, 'a new file in the moved-back run', 10_000);
  });

  test('chokidar where plain fs.watch is not trusted: a network or FUSE filesystem, polling, or RLWATCH_WATCHER=chokidar', async () => {
    const root = tmp();
    writeFileSync(join(root, 'metrics.csv'), `step,loss\n${rows(0, 1)}`);
    const at = (type: string) => async () =>
      `95 27 0:52 / ${realpathSync(tmpdir())} rw,relatime - ${type} server:/x rw`;
    const kinds: string[] = [];
    for (const opts of [
      { readMountInfo: at('ext4') },
      { readMountInfo: at('nfs4') },
      { readMountInfo: at('fuse.sshfs') },
      { readMountInfo: at('fuse.mergerfs') },
      { readMountInfo: at('ext4'), usePolling: true },
      { readMountInfo: at('ext4'), watcher: 'chokidar' as const },
    ]) {
      await workspace(opts).open(root);
      kinds.push(ws!.watcherKind());
      await ws!.close();
    }
    expect(kinds).toEqual(['fs.watch', 'chokidar', 'chokidar', 'chokidar', 'polling', 'chokidar']);
    expect([null, 'ext4', 'xfs', 'tmpfs', 'overlay'].every((t) => fsWatchTrusted(t))).toBe(true);
    expect(['nfs', 'cifs', 'fuse.sshfs', 'fuseblk', 'lustre'].some((t) => fsWatchTrusted(t))).toBe(false);
  });
});

/** fs.watch that takes `n` watches, then throws ENOSPC as Linux does at fs.inotify.max_user_watches. */
function limitedWatch(n: number): typeof watch {
  const { watch: realWatch } = createRequire(import.meta.url)('node:fs') as { watch: typeof watch };
  let taken = 0;
  return ((path: string, listener: (event: string, name: string | null) => void) => {
    if (++taken > n)
      throw Object.assign(
        new Error(`ENOSPC: System limit for number of file watchers reached, watch '${path}'`),
        {
          code: 'ENOSPC',
        },
      );
    return realWatch(path, listener);
  }) as typeof watch;
}

describe.runIf(onLinux)('over the inotify limits', () => {
  test('a folder fs.watch refuses with ENOSPC is polled instead, with one typed fallback; appends there still arrive', async () => {
    const root = tmp();
    const runs = ['r1', 'r2', 'r3'].map((r) => join(root, r));
    for (const r of runs) writeFileSync(join((mkdirSync(r), r), 'metrics.csv'), 'step,loss\n');
    const fallbacks: WatchFallback[] = [];
    const changed = new Set<string>();
    const errors: string[] = [];
    watcher = new FsWatchFolderWatcher(root, {
      // The opened folder and one run folder, then the limit.
      watch: limitedWatch(2),
      onBudgetHit: () => {},
      onStructureChange: () => {},
      onFileChange: (p) => changed.add(p),
      onFileWritten: (p) => {
        changed.add(p);
        return true;
      },
      onFileRemoved: () => {},
      onError: (m) => errors.push(m),
      onFallback: (f) => fallbacks.push(f),
    });
    watcher.watchFolders([root, ...runs], []);
    await watcher.ready();
    expect(watcher.watchedCount()).toBe(4);
    expect(fallbacks).toEqual([{ code: 'ENOSPC', folder: runs[1] }]);
    // Polled (chokidar, 500 ms) once its first scan is done.
    await sleep(1500);
    for (const r of runs) appendFileSync(join(r, 'metrics.csv'), '1,0.5\n');
    await waitFor(
      () => runs.every((r) => changed.has(join(r, 'metrics.csv'))),
      'an append in every run',
      10_000,
    );
    expect(errors).toEqual([]);
    expect(watchLimitNotice(fallbacks[0]!)).toMatch(
      /^ENOSPC: the inotify watch limit \(fs.inotify.max_user_watches\) reached at .*r2: .*polled/,
    );
  });

  test('a workspace over the limit: one warning notice, and appends in the polled run folders still arrive', async () => {
    const root = tmp();
    for (const r of ['r1', 'r2']) {
      mkdirSync(join(root, r));
      writeFileSync(join(root, r, 'metrics.csv'), `step,loss\n${rows(0, 0)}`);
    }
    const notices: AppNotice[] = [];
    workspace({ fsWatch: limitedWatch(1) }).on('app.notice', (n) => notices.push(n));
    await ws!.open(root);
    expect(ws!.watcherKind()).toBe('fs.watch');
    await sleep(1500);
    for (const r of ['r1', 'r2']) appendFileSync(join(root, r, 'metrics.csv'), rows(1, 1));
    await waitFor(() => steps('r1').length === 2 && steps('r2').length === 2, 'the appends', 10_000);
    expect(notices).toEqual([
      { level: 'warning', message: watchLimitNotice({ code: 'ENOSPC', folder: join(root, 'r1') }) },
    ]);
  });
});
