// A tracker database read while a child process commits to it every 20 ms (WAL and rollback journal, busy timeout 0):
// no commit of the writer fails, no false error is read, its -wal/-shm go when it closes, every row is read once, and
// not a byte or a modification time of its files changes by our reading; a crashed writer's files and a garbage -wal
// are read as they are; a database cut short or left mid-commit says so.

import { createHash } from 'node:crypto';
import { copyFileSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { discoverRuns } from '../../../src/core/discovery';
import { inspectPath } from '../../../src/core/inspect';
import { createSource, databaseRuns, readSource } from '../../../src/core/sources/registry';
import { sniffDatabase } from '../../../src/core/sources/sniff';
import { TrackioReader } from '../../../src/core/trackio/trackio-reader';
import { discover } from '../../../src/core/workspace/create';
import { Workspace } from '../../../src/core/workspace/workspace';
import { LiveDbWriter } from '../../helpers/live-db-writer';
import { tempDirs } from '../../helpers/temp-dirs';
import { TrackioDb } from '../../helpers/tracker-dbs';

const tmp = tempDirs();

/** A trackio project database with its tables and no rows, its writer closed. */
function project(dir: string, wal: boolean): string {
  const path = join(dir, 'project.db');
  new TrackioDb(path, { wal }).close();
  return path;
}

/** Every file in `dir`: content hash, size, modification and change times (ns). */
function record(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir).sort()) {
    const st = statSync(join(dir, f), { bigint: true });
    const hash = createHash('sha256')
      .update(readFileSync(join(dir, f)))
      .digest('hex');
    out[f] = `${hash} ${st.size} ${st.mtimeNs} ${st.ctimeNs}`;
  }
  return out;
}

const losses = (r: TrackioReader | Awaited<ReturnType<typeof readSource>>): number[] => [
  ...(r.series.get('loss')?.values() ?? []),
];
const steps = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe.each([
  ['WAL', 'wal'],
  ['rollback journal', 'delete'],
] as const)('a live writer in %s mode, committing every 20 ms', (_name, mode) => {
  test('never fails a commit, is never read as damaged, and cleans up when it closes; every row is read once', async () => {
    const dir = tmp('rlwatch-live-writer-');
    const path = project(dir, mode === 'wal');
    const writer = await LiveDbWriter.start(path, mode);
    const reader = new TrackioReader(path, { member: 'r1' });
    // As `watch`, `inspect` and discovery do, as often as the event loop allows, until the writer has closed: each
    // poll, a whole read from the start, and a look at the run list.
    let reading = true;
    const loop = (async () => {
      for (let i = 0; reading; i++) {
        await reader.readMore();
        await readSource(path, 'trackio', { member: 'r1' });
        if (i % 5 === 0) {
          await sniffDatabase(path);
          databaseRuns(path, 'trackio');
        }
        await sleep(1);
      }
    })();
    await sleep(3_000);
    const result = await writer.quit();
    reading = false;
    await loop;
    expect(result.commits).toBeGreaterThan(20);
    expect(result).toEqual({ commits: result.commits, failures: 0, codes: {} });
    // The writer checkpointed and removed its -wal and -shm (nothing of ours held the database).
    expect(readdirSync(dir)).toEqual(['project.db']);
    await reader.readMore({ final: true });
    expect(reader.result().errors).toEqual([]);
    expect(losses(reader)).toEqual(steps(result.commits));
  });

  test('reading leaves every byte and modification time of its files as the writer left them', async () => {
    const dir = tmp('rlwatch-live-ro-');
    const path = project(dir, mode === 'wal');
    const writer = await LiveDbWriter.start(path, mode);
    const allowed =
      mode === 'wal'
        ? ['project.db', 'project.db-shm', 'project.db-wal']
        : ['project.db', 'project.db-journal'];
    const reader = new TrackioReader(path, { member: 'r1' });
    try {
      for (let cycle = 0; cycle < 3; cycle++) {
        for (let i = 0; i < 15; i++) {
          await reader.readMore();
          for (const f of readdirSync(dir)) expect(allowed).toContain(f);
          await sleep(10);
        }
        // Between two commits, the writer's connection open: any byte or time that moves now is ours.
        const committed = await writer.pause();
        const before = record(dir);
        await reader.readMore();
        const once = await readSource(path, 'trackio', { member: 'r1' });
        expect(losses(once)).toEqual(steps(committed));
        const report = await inspectPath(dir);
        expect(report.runs.map((r) => r.run)).toEqual(['project.db#ppo']);
        expect(record(dir)).toEqual(before);
        writer.resume();
      }
    } finally {
      await writer.quit();
    }
    expect(readdirSync(dir)).toEqual(['project.db']);
  });
});

describe('files left as they were', () => {
  /** A WAL writer killed after `n` commits: its database, -wal and -shm as a crash leaves them. */
  async function crashed(dir: string): Promise<number> {
    const path = project(dir, true);
    // No checkpoint: every commit stays in the -wal.
    const writer = await LiveDbWriter.start(path, 'wal', { everyMs: 5, autocheckpoint: 100_000 });
    await sleep(300);
    const n = await writer.pause();
    await writer.kill();
    expect(readdirSync(dir).sort()).toEqual(['project.db', 'project.db-shm', 'project.db-wal']);
    return n;
  }

  test("a crashed WAL writer's files (its -shm, or its -wal alone) are read as they are: nothing made or rewritten", async () => {
    const withShm = tmp('rlwatch-crashed-');
    const n = await crashed(withShm);
    const noShm = tmp('rlwatch-crashed-');
    for (const f of ['project.db', 'project.db-wal']) copyFileSync(join(withShm, f), join(noShm, f));
    for (const dir of [withShm, noShm]) {
      const before = record(dir);
      const report = await inspectPath(dir);
      expect(report.runs.map((r) => r.run)).toEqual(['project.db#ppo']);
      const once = await readSource(join(dir, 'project.db'), 'trackio', { member: 'r1' });
      expect(losses(once)).toEqual(steps(n));
      expect(record(dir)).toEqual(before);
    }
  });

  test('a garbage -wal beside a database is read past: nothing made beside it', async () => {
    const dir = tmp('rlwatch-garbage-wal-');
    const path = join(dir, 'project.db');
    const db = new TrackioDb(path, { wal: false });
    for (let i = 0; i < 5; i++) db.log({ id: 'r1', name: 'ppo' }, i, { loss: i }, 1.7e15 + i);
    db.close();
    writeFileSync(`${path}-wal`, Buffer.alloc(8192, 0x5a));
    const before = record(dir);
    const report = await inspectPath(dir);
    expect(report.runs.map((r) => r.run)).toEqual(['project.db#ppo']);
    expect(losses(await readSource(path, 'trackio', { member: 'r1' }))).toEqual(steps(5));
    expect(record(dir)).toEqual(before);
  });
});

describe('a database that cannot be read says why', () => {
  test('cut to half: discovery, inspect and a notice report it cut short, naming the file', async () => {
    const dir = tmp('rlwatch-cut-db-');
    const path = join(dir, 'project.db');
    const db = new TrackioDb(path, { wal: false });
    db.db.transaction(() => {
      for (let i = 0; i < 300; i++)
        db.log({ id: 'r1', name: 'ppo' }, i, { loss: i, pad: 'x'.repeat(200) }, 1.7e15);
    })();
    db.close();
    truncateSync(path, Math.floor(statSync(path).size / 2 / 4096) * 4096);
    const found = await discoverRuns(dir);
    expect(found.runs).toEqual([]);
    expect(found.errors).toEqual([
      {
        kind: 'database',
        path: 'project.db',
        message: expect.stringMatching(/^the database is cut short: /),
      },
    ]);
    const report = await inspectPath(dir);
    expect(report.walkErrors).toEqual([
      { path: 'project.db', message: expect.stringMatching(/^the database is cut short: /) },
    ]);
    // The window and `watch` show it as a notice, as every other source that cannot be read.
    const ws = new Workspace({ discover, createSource, sweepMs: 600_000 });
    const notices: string[] = [];
    ws.on('app.notice', (n) => notices.push(n.message));
    try {
      await ws.open(dir);
      expect(ws.listRuns()).toEqual([]);
      expect(notices).toEqual([
        expect.stringMatching(/^cannot read database project\.db: the database is cut short: /),
      ]);
    } finally {
      await ws.close();
    }
  });

  test('a writer killed mid-commit (its journal hot): discovery, inspect and a read report the hot journal', async () => {
    const dir = tmp('rlwatch-hot-journal-');
    const path = join(dir, 'project.db');
    const db = new TrackioDb(path, { wal: false });
    for (let i = 0; i < 5; i++) db.log({ id: 'r1', name: 'ppo' }, i, { loss: i }, 1.7e15 + i);
    db.close();
    const writer = await LiveDbWriter.start(path, 'stall');
    await writer.kill();
    expect(readdirSync(dir).sort()).toEqual(['project.db', 'project.db-journal']);
    const before = record(dir);
    const hot = expect.stringMatching(
      /^the database has a hot journal \(.*project\.db-journal\): its writer/,
    );
    const found = await discoverRuns(dir);
    expect(found.runs).toEqual([]);
    expect(found.errors).toEqual([{ kind: 'database', path: 'project.db', message: hot }]);
    expect((await inspectPath(dir)).walkErrors).toEqual([{ path: 'project.db', message: hot }]);
    const once = await readSource(path, 'trackio', { member: 'r1' });
    expect(once.errors).toEqual([{ kind: 'io', offset: 0, message: hot }]);
    // Nothing rolled back in place: that is the writer's (or sqlite3's) to do.
    expect(record(dir)).toEqual(before);
  });
});
