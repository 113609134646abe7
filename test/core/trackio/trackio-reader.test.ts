// trackio project databases against an independent reader (Python's sqlite3 and json, as trackio reads them back),
// typed errors for files that are not (or no longer) trackio databases, and a read that leaves the folder untouched.

import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, test, vi } from 'vitest';
import { inspectPath } from '../../../src/core/inspect';
import { databaseRuns, readSource } from '../../../src/core/sources/registry';
import { classifyFile, formatByName } from '../../../src/core/sources/sniff';
import { TrackioReader } from '../../../src/core/trackio/trackio-reader';
import { tempDirs } from '../../helpers/temp-dirs';
import { TrackioDb } from '../../helpers/tracker-dbs';

const tmp = tempDirs();

/** Per run (run_id, else run_name): its name, per tag [step, wall, value] as trackio stores and reads them (metrics
 * JSON's top-level numbers, "Infinity"/"-Infinity"/"NaN"; system metrics numbered by sample), and its config. */
const REFERENCE = String.raw`
import json, math, sqlite3, sys
from datetime import datetime
con = sqlite3.connect('file:' + sys.argv[1] + '?immutable=1', uri=True)
cols = [r[1] for r in con.execute('PRAGMA table_info(metrics)')]
key = 'run_id' if 'run_id' in cols else 'run_name'
SPECIAL = {'Infinity': math.inf, '-Infinity': -math.inf, 'NaN': math.nan}
def num(v):
    if isinstance(v, bool): return None
    if isinstance(v, (int, float)): return float(v)
    if isinstance(v, str) and v in SPECIAL: return SPECIAL[v]
    return None
def enc(v):
    return 'nan' if math.isnan(v) else 'inf' if v == math.inf else '-inf' if v == -math.inf else v
runs = {}
def run(member, name):
    return runs.setdefault(member, {'name': name, 'tags': {}, 'config': None, 'rows': 0})
for member, name, ts, step, text in con.execute(f'SELECT {key}, run_name, timestamp, step, metrics FROM metrics ORDER BY id'):
    r = run(member, name)
    r['rows'] += 1
    wall = datetime.fromisoformat(ts).timestamp()
    for k, v in json.loads(text).items():
        n = num(v)
        if n is not None: r['tags'].setdefault(k, []).append([step, wall, enc(n)])
samples = {}
for member, name, ts, text in con.execute(f'SELECT {key}, run_name, timestamp, metrics FROM system_metrics ORDER BY id'):
    r = run(member, name)
    r['rows'] += 1
    i = samples.get(member, 0); samples[member] = i + 1
    for k, v in json.loads(text).items():
        n = num(v)
        if n is not None: r['tags'].setdefault('system/' + k, []).append([i, datetime.fromisoformat(ts).timestamp(), enc(n)])
for member, name, text in con.execute(f'SELECT {key}, run_name, config FROM configs ORDER BY id'):
    c = json.loads(text)
    run(member, name)['config'] = {k: (enc(SPECIAL[v]) if isinstance(v, str) and v in SPECIAL else v) for k, v in c.items()}
print(json.dumps(runs))
`;

interface RefRun {
  name: string;
  tags: Record<string, [number, number, number | string][]>;
  config: Record<string, unknown> | null;
  rows: number;
}

function reference(path: string): Record<string, RefRun> {
  return JSON.parse(execFileSync('python3', ['-c', REFERENCE, path]).toString()) as Record<string, RefRun>;
}

const enc = (v: number): number | string =>
  Number.isNaN(v) ? 'nan' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : v;

/** What rlwatch reads of each run of the database, in the reference's shape. */
async function ours(path: string): Promise<Record<string, RefRun>> {
  const out: Record<string, RefRun> = {};
  for (const { member, name } of databaseRuns(path, 'trackio')) {
    const r = await readSource(path, 'trackio', { member });
    expect(r.errors).toEqual([]);
    const tags: RefRun['tags'] = {};
    for (const [tag, s] of r.series.entries())
      tags[tag] = Array.from({ length: s.length }, (_, i) => [s.step(i), s.wallTime(i), enc(s.value(i))]);
    const config = r.config
      ? Object.fromEntries(Object.entries(r.config).map(([k, v]) => [k, typeof v === 'number' ? enc(v) : v]))
      : null;
    out[member] = { name, tags, config, rows: r.records };
  }
  return out;
}

/** A project of three runs (two sharing a name, as a resumed trackio run with a new id does), with every kind of
 * value trackio stores: floats to the last bit, ints, non-finite ones, bools, text, media dicts; microsecond times. */
function writeProject(
  path: string,
  opts: { wal?: boolean; legacy?: boolean; textJson?: boolean } = {},
): TrackioDb {
  const db = new TrackioDb(path, opts);
  db.db.exec('BEGIN');
  const a = { id: 'r-a1', name: 'ppo-κ 1' };
  const b = { id: 'r-b2', name: 'grpo' };
  const c = { id: 'r-c3', name: opts.legacy ? 'grpo-2' : 'grpo' };
  db.config(a, { lr: 3e-4, seed: 7, target_kl: 'NaN', tags: ['x'], _Username: 'me' });
  db.config(b, { lr: 0.1 });
  const t0 = 1_745_000_000_123_456;
  for (let i = 0; i < 300; i++) {
    const at = t0 + i * 1_000_037;
    db.log(
      a,
      i * 3,
      {
        'train/loss': (Math.sin(i) * 1e3) / 7,
        'train/reward': i,
        'train/kl': i === 50 ? Number.NaN : i === 51 ? Infinity : i === 52 ? -Infinity : i / 1e7,
        flag: i % 2 === 0,
        note: 'text',
        image: { _type: 'trackio.image', file_path: 'x.png' },
      },
      at,
    );
    if (i % 10 === 0) db.system(a, { 'gpu/0/utilization': i % 100, 'cpu/percent': 12.5 }, at);
    if (i < 40) db.log(b, i, { loss: 1 / (i + 1) }, at + 17);
    if (i >= 100 && i < 120) db.log(c, i, { loss: -i }, at + 99);
  }
  db.db.exec('COMMIT');
  return db;
}

test('each run of a trackio database reads exactly as Python reads it: names, tags, steps, times, values, configs', async () => {
  for (const opts of [{ wal: true }, { wal: false }, { legacy: true }, { textJson: true }]) {
    const dir = tmp('rlwatch-trackio-');
    const path = join(dir, 'project.db');
    writeProject(path, opts).close();
    const ref = reference(path);
    const got = await ours(path);
    expect(Object.keys(got).sort()).toEqual(Object.keys(ref).sort());
    for (const member of Object.keys(ref)) {
      expect(got[member]!.name).toBe(ref[member]!.name);
      expect(got[member]!.rows).toBe(ref[member]!.rows);
      expect(got[member]!.config).toEqual(ref[member]!.config);
      expect(Object.keys(got[member]!.tags).sort()).toEqual(Object.keys(ref[member]!.tags).sort());
      for (const tag of Object.keys(ref[member]!.tags))
        expect(got[member]!.tags[tag]).toEqual(ref[member]!.tags[tag]);
    }
    // The data has what the comparison must cover.
    const a = Object.values(got).find((r) => r.name === 'ppo-κ 1')!;
    expect(a.tags['train/kl']!.slice(50, 53).map((p) => p[2])).toEqual(['nan', 'inf', '-inf']);
    expect(a.tags['system/gpu/0/utilization']).toHaveLength(30);
    expect(a.tags['flag']).toBeUndefined();
    expect(a.tags['train/loss']![1]![1] % 1).not.toBe(0); // microsecond times
  }
});

test('discovery names each run DB#NAME; a second run of one name is NAME (ID); inspect lists every run', async () => {
  const dir = tmp('rlwatch-trackio-inspect-');
  mkdirSync(join(dir, 'trackio'));
  writeProject(join(dir, 'trackio', 'project.db'), {}).close();
  const report = await inspectPath(dir);
  const names = ['project.db#grpo', 'project.db#grpo (r-c3)', 'project.db#ppo-κ 1'];
  expect(report.runs.map((r) => r.run)).toEqual(names.map((n) => `trackio/${n}`));
  const a = report.runs.find((r) => r.run === 'trackio/project.db#ppo-κ 1')!;
  expect(a.sources).toEqual([
    { file: 'project.db', format: 'trackio', records: 330, errors: [], texts: 0, histograms: 0, samples: [] },
  ]);
  expect(a.scalars['train/reward']).toMatchObject({ count: 300, firstStep: 0, lastStep: 897 });
  expect(a.config).toMatchObject({ lr: 3e-4, seed: 7 });
  // The database opened as a file gives the same runs.
  const file = await inspectPath(join(dir, 'trackio', 'project.db'));
  expect(file.runs.map((r) => r.run)).toEqual(names);
  expect(file.runs.map((r) => r.scalars)).toEqual(report.runs.map((r) => r.scalars));
});

test('a .db file is a source only when its tables are a tracker’s', async () => {
  const dir = tmp('rlwatch-trackio-sniff-');
  expect(formatByName('project.db')).toBe('sniff');
  writeProject(join(dir, 'p.db')).close();
  expect(await classifyFile(join(dir, 'p.db'), 'p.db')).toBe('trackio');
  writeFileSync(join(dir, 'text.db'), 'hello, not a database');
  expect(await classifyFile(join(dir, 'text.db'), 'text.db')).toBeNull();
  const other = new TrackioDb(join(dir, 'other.db'));
  other.db.exec('DROP TABLE metrics');
  other.close();
  expect(await classifyFile(join(dir, 'other.db'), 'other.db')).toBeNull();
});

test('typed errors: not SQLite, cut short, damaged, not trackio’s tables; a row of bad JSON', async () => {
  const dir = tmp('rlwatch-trackio-errors-');
  const read = (path: string) => readSource(path, 'trackio', { member: 'r-a1' });

  writeFileSync(join(dir, 'text.db'), 'x'.repeat(4096));
  expect((await read(join(dir, 'text.db'))).errors).toEqual([
    { kind: 'decode', offset: 0, message: expect.stringMatching(/not an SQLite database/) },
  ]);

  const good = join(dir, 'good.db');
  writeProject(good, { wal: false }).close();
  const cut = join(dir, 'cut.db');
  copyFileSync(good, cut);
  truncateSync(cut, Math.floor(readFileSync(good).length / 2));
  expect((await read(cut)).errors).toEqual([
    {
      kind: 'truncated',
      offset: Math.floor(readFileSync(good).length / 2),
      message: expect.stringMatching(/cut short/),
    },
  ]);

  const damaged = join(dir, 'damaged.db');
  const bytes = readFileSync(good);
  // Page 2 on (the schema is on page 1): b-tree pages overwritten with noise.
  for (let i = 4096; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
  writeFileSync(damaged, bytes);
  const d = await read(damaged);
  expect(d.errors).toHaveLength(1);
  expect(d.errors[0]).toMatchObject({ kind: 'decode', message: expect.stringMatching(/damaged/) });

  const foreign = join(dir, 'foreign.db');
  const f = new TrackioDb(foreign);
  f.db.exec('DROP TABLE metrics; CREATE TABLE metrics (a, b)');
  f.close();
  expect((await read(foreign)).errors).toEqual([
    { kind: 'decode', offset: 0, message: expect.stringMatching(/not a trackio database/) },
  ]);

  const rows = join(dir, 'rows.db');
  const w = new TrackioDb(rows);
  const run = { id: 'r-a1', name: 'a' };
  w.log(run, 0, { loss: 1 }, 1.7e15);
  w.logRaw(run, 1, '{"loss": 2', 1.7e15 + 1);
  w.log(run, 2, { loss: 3 }, 1.7e15 + 2);
  w.close();
  const r = await read(rows);
  expect(r.errors).toEqual([
    { kind: 'decode', offset: 2, message: 'trackio metrics row 2: metrics is not a JSON object' },
  ]);
  expect([...r.series.get('loss').values()]).toEqual([1, 3]);
});

test('a writer holding the lock does not stop a read; one mid-commit (its journal hot) is reported only once it lasts (at once on a one-shot read), then read on', async () => {
  const dir = tmp('rlwatch-trackio-locked-');
  const path = join(dir, 'locked.db');
  writeProject(path, { wal: false }).close();
  // A rollback-journal writer: an EXCLUSIVE transaction (no reader of the file may read), then, told to, a transaction
  // larger than its cache, which spills into the database file (the journal hot) and waits uncommitted.
  const py = spawn('python3', [
    '-c',
    `import sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute('BEGIN EXCLUSIVE')
print('locked', flush=True)
sys.stdin.readline()
con.execute('COMMIT')
con.execute('PRAGMA cache_size = 2')
con.execute('BEGIN')
for i in range(2000):
    con.execute("INSERT INTO metrics (run_id, timestamp, run_name, step, metrics) VALUES ('zz', '2024-01-01T00:00:00+00:00', 'zz', ?, '{}')", (i,))
print('mid-commit', flush=True)
sys.stdin.readline()
con.execute('COMMIT')`,
    path,
  ]);
  // Lines, not chunks: a pipe may split one.
  const lines = createInterface({ input: py.stdout });
  const said = (): Promise<void> => new Promise<void>((res) => lines.once('line', () => res()));
  await said();
  try {
    // rlwatch reads a private copy and takes no lock: the writer's lock is none of its business.
    const locked = await readSource(path, 'trackio', { member: 'r-a1' });
    expect(locked.errors).toEqual([]);
    expect(locked.series.get('train/reward')!.length).toBe(300);
    const next = said();
    py.stdin.write('\n');
    await next;
    const hot = expect.stringMatching(/hot journal/);
    const once = await readSource(path, 'trackio', { member: 'r-a1' });
    expect(once.errors).toEqual([{ kind: 'io', offset: 0, message: hot }]);
    let now = 0;
    const live = new TrackioReader(path, { member: 'r-a1', now: () => now });
    await live.readMore();
    expect(live.result().errors).toEqual([]); // a commit takes a moment: not an error yet
    now = 3_000;
    await live.readMore();
    expect(live.result().errors).toEqual([{ kind: 'io', offset: 0, message: hot }]);
    py.stdin.write('\n');
    await new Promise((res) => py.once('exit', res));
    await live.readMore();
    expect(live.result().series.get('train/reward').length).toBe(300);
  } finally {
    py.kill();
  }
});

test('reading leaves the folder byte-identical: no -wal or -shm made, in either journal mode', async () => {
  for (const wal of [false, true]) {
    const dir = tmp('rlwatch-trackio-ro-');
    writeProject(join(dir, 'project.db'), { wal }).close();
    const before = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));
    expect(Object.keys(before)).toEqual(['project.db']); // the writer closed: SQLite removed its -wal and -shm
    const report = await inspectPath(dir);
    expect(report.runs).toHaveLength(3);
    const live = new TrackioReader(join(dir, 'project.db'), { member: 'r-a1' });
    await live.readMore();
    await live.readMore();
    expect(readdirSync(dir)).toEqual(['project.db']);
    expect(readFileSync(join(dir, 'project.db')).equals(before['project.db']!)).toBe(true);
  }
});

test('a database deleted and made again at its path is read from its start', async () => {
  const dir = tmp('rlwatch-trackio-replaced-');
  const path = join(dir, 'project.db');
  const run = { id: 'r-a1', name: 'ppo' };
  const first = new TrackioDb(path, { wal: false });
  for (let i = 0; i < 5; i++) first.log(run, i, { loss: i }, 1.7e15 + i);
  first.close();
  const reader = new TrackioReader(path, { member: 'r-a1' });
  await reader.readMore();
  const before = reader.series;
  expect([...before.get('loss').values()]).toEqual([0, 1, 2, 3, 4]);
  rmSync(path);
  const second = new TrackioDb(path, { wal: false });
  second.log(run, 0, { loss: 10 }, 1.7e15);
  second.log(run, 1, { loss: 11 }, 1.7e15 + 1);
  second.close();
  await reader.readMore();
  expect(reader.series).not.toBe(before); // a new set: the workspace keeps the old one as a replaced file's
  expect([...reader.series.get('loss').values()]).toEqual([10, 11]);
  expect(databaseRuns(path, 'trackio').map((r) => r.member)).toEqual(['r-a1']);
});

test('a database made again while no connection to it was open is still read from its start', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  try {
    const dir = tmp('rlwatch-trackio-replaced-idle-');
    const path = join(dir, 'project.db');
    const run = { id: 'r-a1', name: 'ppo' };
    const first = new TrackioDb(path, { wal: false });
    for (let i = 0; i < 5; i++) first.log(run, i, { loss: i }, 1.7e15 + i);
    first.close();
    const reader = new TrackioReader(path, { member: 'r-a1' });
    await reader.readMore();
    expect(databaseRuns(path, 'trackio').map((r) => r.member)).toEqual(['r-a1']);
    // The shared connection is let go once idle (a slow sweep); the file is replaced before the next read.
    vi.advanceTimersByTime(60_000);
    rmSync(path);
    const second = new TrackioDb(path, { wal: false });
    second.log({ id: 'r-b2', name: 'grpo' }, 0, { loss: 20 }, 1.7e15);
    second.log(run, 0, { loss: 10 }, 1.7e15 + 1);
    second.close();
    await reader.readMore();
    expect([...reader.series.get('loss').values()]).toEqual([10]);
    expect(databaseRuns(path, 'trackio').map((r) => r.member)).toEqual(['r-b2', 'r-a1']);
  } finally {
    vi.useRealTimers();
  }
});

test('an idle run is not queried again: a poll with nothing committed since the last one reads no table', async () => {
  const dir = tmp('rlwatch-trackio-idle-');
  const path = join(dir, 'project.db');
  const run = { id: 'r-a1', name: 'ppo' };
  const db = new TrackioDb(path, { wal: false });
  db.log(run, 0, { loss: 0 }, 1.7e15);
  const reader = new TrackioReader(path, { member: 'r-a1' });
  const polls = vi.spyOn(reader as unknown as { poll: () => Promise<void> }, 'poll');
  await reader.readMore();
  await reader.readMore();
  await reader.readMore();
  expect(polls).toHaveBeenCalledTimes(1);
  db.log(run, 1, { loss: 1 }, 1.7e15 + 1);
  await reader.readMore();
  expect(polls).toHaveBeenCalledTimes(2);
  expect([...reader.series.get('loss').values()]).toEqual([0, 1]);
  db.close();
});
