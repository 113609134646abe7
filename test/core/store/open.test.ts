// openStore on real temp files: migrations, WAL, corruption recovery, fallbacks and two connections at once.

import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultLoader, openStore, SCHEMA_VERSION } from '../../../src/core/store';
import type { SqliteConstructor, Store } from '../../../src/core/store';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3') as SqliteConstructor;

let dir = '';
let dbPath = '';
const open: Store[] = [];
const track = (s: Store): Store => (open.push(s), s);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlwatch-open-'));
  dbPath = join(dir, 'rlwatch.db');
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
  chmodSync(dir, 0o755);
  rmSync(dir, { recursive: true, force: true });
});

const sample = (t: number) => ({ t, snapshot: { cpuPct: t % 100, memPct: 50, gpus: [{ index: 0 }] } });
const FIXED_NOW = Date.UTC(2025, 0, 2, 3, 4, 5, 6);

describe('openStore', () => {
  it('creates the directory, migrates a new file, enables WAL and persists across reopen', () => {
    const nested = join(dir, 'a', 'b', 'rlwatch.db');
    const s = openStore({ path: nested });
    expect(s.status).toEqual({
      persistent: true,
      path: nested,
      schemaVersion: SCHEMA_VERSION,
      recovered: null,
    });
    s.setSetting('k', [1, 2]);
    s.touchRun('/r', 5);
    s.close();

    const db = new Database(nested);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();

    const again = track(openStore({ path: nested }));
    expect(again.getSetting('k')).toEqual([1, 2]);
    expect(again.recentRuns().map((r) => r.path)).toEqual(['/r']);
  });

  it('migrates an empty v0 file (0 bytes) and a v0 database with no tables', () => {
    writeFileSync(dbPath, '');
    const s = openStore({ path: dbPath });
    expect(s.status).toMatchObject({ persistent: true, recovered: null });
    s.setSetting('x', 1);
    s.close();

    const other = join(dir, 'v0.db');
    const db = new Database(other);
    db.exec('CREATE TABLE unrelated (a)');
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    db.close();
    const t = track(openStore({ path: other }));
    expect(t.status).toMatchObject({ persistent: true, schemaVersion: SCHEMA_VERSION });
    t.appendSystemSamples([sample(1)]);
    expect(t.systemSampleCount()).toBe(1);
  });

  it('sets synchronous=NORMAL on its connection', () => {
    let seen: unknown;
    const spy = function (this: unknown, path: string, o: object) {
      const db = new Database(path, o);
      const pragma = db.pragma.bind(db);
      db.pragma = ((src: string, opt?: { simple?: boolean }) => {
        const r = pragma(src, opt);
        if (src.startsWith('synchronous')) seen = pragma('synchronous', { simple: true });
        return r;
      }) as typeof db.pragma;
      return db;
    } as unknown as SqliteConstructor;
    track(openStore({ path: dbPath, loader: () => spy }));
    expect(seen).toBe(1); // NORMAL
  });

  it('moves a garbage file aside, rebuilds, and says so', () => {
    writeFileSync(dbPath, Buffer.from('this is not a database, it is a shopping list\n'.repeat(100)));
    writeFileSync(`${dbPath}-wal`, 'junk wal');
    const s = track(openStore({ path: dbPath, now: () => FIXED_NOW }));
    expect(s.status.persistent).toBe(true);
    if (!s.status.persistent) return;
    const moved = `${dbPath}.corrupt-2025-01-02T03-04-05-006Z`;
    expect(s.status.recovered).toEqual({ movedTo: moved, cause: expect.stringContaining('not an SQLite') });
    expect(readdirSync(dir).sort()).toEqual(
      expect.arrayContaining([
        'rlwatch.db',
        'rlwatch.db.corrupt-2025-01-02T03-04-05-006Z',
        `rlwatch.db.corrupt-2025-01-02T03-04-05-006Z-wal`,
      ]),
    );
    expect(readFileSync(moved, 'utf8')).toContain('shopping list');
    s.setSetting('fresh', true);
    expect(s.getSetting('fresh')).toBe(true);
  });

  it('moves a truncated real database aside and rebuilds', () => {
    const s = openStore({ path: dbPath });
    s.appendSystemSamples(Array.from({ length: 20_000 }, (_, i) => sample(i)));
    s.close();
    const size = statSync(dbPath).size;
    expect(size).toBeGreaterThan(100_000);
    truncateSync(dbPath, Math.floor(size / 2));

    const r = track(openStore({ path: dbPath, now: () => FIXED_NOW }));
    expect(r.status).toMatchObject({
      persistent: true,
      recovered: { movedTo: expect.stringContaining('.corrupt-') },
    });
    expect(readdirSync(dir).some((f) => f.startsWith('rlwatch.db.corrupt-'))).toBe(true);
    expect(r.systemSampleCount()).toBe(0);
    r.appendSystemSamples([sample(1)]);
    expect(r.systemSampleCount()).toBe(1);
  });

  it('does not clobber an earlier .corrupt file with the same stamp', () => {
    writeFileSync(dbPath, 'garbage one');
    track(openStore({ path: dbPath, now: () => FIXED_NOW })).close();
    open.pop();
    writeFileSync(dbPath, 'garbage two');
    const s = track(openStore({ path: dbPath, now: () => FIXED_NOW }));
    expect(s.status).toMatchObject({ recovered: { movedTo: expect.stringMatching(/-1$/) } });
    expect(readdirSync(dir).filter((f) => f.includes('.corrupt-'))).toHaveLength(2);
  });

  it('falls back to memory when require(better-sqlite3) throws an ABI mismatch', () => {
    const abi = new Error(
      "The module '/x/better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 140. This version of Node.js requires NODE_MODULE_VERSION 115.",
    );
    const s = openStore({
      path: dbPath,
      loader: () => {
        throw abi;
      },
    });
    expect(s.status).toMatchObject({ persistent: false, kind: 'native-module', path: dbPath });
    if (s.status.persistent) return;
    expect(s.status.reason).toContain('NODE_MODULE_VERSION');
    expect(s.status.reason).toContain('in memory');
    // The fallback is a working store.
    s.touchRun('/r', 1);
    s.recordAlert({
      run: '/r',
      rule: 'x',
      tag: null,
      severity: 'info',
      state: 'raised',
      step: 1,
      value: 1,
      message: 'm',
      at: 1,
    });
    expect(s.recentRuns()).toHaveLength(1);
    expect(s.alertHistory()).toHaveLength(1);
    expect(existsSync(dbPath)).toBe(false);
  });

  it('falls back when the addon fails in the constructor (where better-sqlite3 really loads it)', () => {
    const Ctor = function () {
      throw Object.assign(new Error('was compiled against a different Node.js version'), {
        code: 'ERR_DLOPEN_FAILED',
      });
    } as unknown as SqliteConstructor;
    const s = openStore({ path: dbPath, loader: () => Ctor });
    expect(s.status).toMatchObject({ persistent: false, kind: 'native-module' });
  });

  it('falls back on a real bad nativeBinding: a file that is not a loadable addon, and a missing one', () => {
    const fake = join(dir, 'better_sqlite3.node');
    writeFileSync(fake, 'not an ELF');
    const s = openStore({ path: dbPath, nativeBinding: fake });
    expect(s.status).toMatchObject({ persistent: false, kind: 'native-module' });
    const t = openStore({ path: dbPath, nativeBinding: join(dir, 'electron', 'missing.node') });
    expect(t.status).toMatchObject({ persistent: false, kind: 'native-module' });
  });

  it('accepts nativeBinding pointing at the Node build (how Electron main passes its own)', () => {
    const nodeBuild = require.resolve('better-sqlite3/build/Release/better_sqlite3.node');
    const s = track(openStore({ path: dbPath, nativeBinding: nodeBuild, loader: defaultLoader }));
    expect(s.status.persistent).toBe(true);
  });

  it('falls back when the location cannot be created (parent is a file)', () => {
    const file = join(dir, 'file');
    writeFileSync(file, 'x');
    const s = openStore({ path: join(file, 'sub', 'rlwatch.db') });
    expect(s.status).toMatchObject({ persistent: false, kind: 'cannot-open' });
    s.setSetting('still', 'works');
    expect(s.getSetting('still')).toBe('works');
  });

  it('falls back where the database cannot be written (read-only place)', () => {
    // Root ignores mode bits, so as root the read-only place is sysfs; otherwise a chmod 555 folder.
    let path = '/sys/rlwatch-test.db';
    const ro = join(dir, 'ro');
    const asRoot = process.getuid?.() === 0;
    if (!asRoot) {
      mkdirSync(ro);
      chmodSync(ro, 0o555);
      path = join(ro, 'rlwatch.db');
    }
    const s = openStore({ path });
    if (!asRoot) chmodSync(ro, 0o755);
    expect(s.status).toMatchObject({ persistent: false, kind: 'cannot-open' });
    s.setSetting('still', 'works');
    expect(s.getSetting('still')).toBe('works');
  });

  it('leaves a database from a newer rlwatch untouched and falls back', () => {
    const db = new Database(dbPath);
    db.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    db.exec('CREATE TABLE future (a)');
    db.close();
    const s = openStore({ path: dbPath });
    expect(s.status).toMatchObject({ persistent: false, kind: 'newer-schema' });
    const again = new Database(dbPath, { readonly: true });
    expect(again.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 5);
    again.close();
    expect(readdirSync(dir).some((f) => f.includes('.corrupt-'))).toBe(false);
  });

  it('lets two Store instances use one file at once (WAL)', () => {
    const a = track(openStore({ path: dbPath }));
    const b = track(openStore({ path: dbPath }));
    expect(a.status.persistent && b.status.persistent).toBe(true);
    a.appendSystemSamples([sample(1), sample(2)]);
    b.appendSystemSamples([sample(3)]);
    a.setSetting('from', 'a');
    expect(b.getSetting('from')).toBe('a');
    expect(a.systemSampleCount()).toBe(3);
    expect(b.systemSamples(0).map((x) => x.t)).toEqual([1, 2, 3]);
  });

  it('gives a memory store when asked for none', () => {
    const s = openStore({ path: null });
    expect(s.status).toMatchObject({ persistent: false, kind: 'memory-requested' });
  });
});
