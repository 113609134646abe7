// `npm start`: the Electron build of SQLite is fetched once and a failure told once; browser mode never asks.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  electronSqliteScript,
  repoRoot,
  startScript,
  type ElectronSqliteScript,
  type StartScript,
} from './scripts';

let sqlite: ElectronSqliteScript;
let start: StartScript;
const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'rlwatch-first-run-'));
  dirs.push(d);
  return d;
};
beforeAll(async () => {
  sqlite = await electronSqliteScript();
  start = await startScript();
});
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('Electron build of better-sqlite3', () => {
  it('is fetched once: the next start finds it cached and fetches nothing', () => {
    const dir = tempDir();
    let fetches = 0;
    const fetchBinary = () => {
      fetches++;
      const file = join(tempDir(), 'better_sqlite3.node');
      writeFileSync(file, 'binary');
      return { ok: true as const, file };
    };
    const first = sqlite.ensureElectronSqlite({ dir, electronVersion: '45.4.1', fetchBinary });
    expect(first).toEqual({ ok: true, path: join(dir, 'better_sqlite3.node') });
    expect(existsSync(join(dir, 'better_sqlite3.node'))).toBe(true);
    expect(sqlite.ensureElectronSqlite({ dir, electronVersion: '45.4.1', fetchBinary })).toEqual(first);
    expect(fetches).toBe(1);
  });

  it('tells a failure once: later starts neither retry nor repeat it, until forced', () => {
    const dir = tempDir();
    let fetches = 0;
    const fetchBinary = () => {
      fetches++;
      return { ok: false as const, why: 'github.com is unreachable' };
    };
    const first = sqlite.ensureElectronSqlite({ dir, electronVersion: '45.4.1', fetchBinary });
    expect(first).toEqual({
      ok: false,
      firstFailure: true,
      reason: 'could not fetch the Electron build of better-sqlite3: github.com is unreachable',
    });
    const second = sqlite.ensureElectronSqlite({ dir, electronVersion: '45.4.1', fetchBinary });
    expect(second).toEqual({ ...first, firstFailure: false });
    expect(fetches).toBe(1);
    sqlite.ensureElectronSqlite({ dir, electronVersion: '45.4.1', fetchBinary, force: true });
    expect(fetches).toBe(2);
  });

  it('tries again after an Electron upgrade (the remembered failure was for another version)', () => {
    const dir = tempDir();
    let fetches = 0;
    const fetchBinary = () => {
      fetches++;
      return { ok: false as const, why: 'offline' };
    };
    sqlite.ensureElectronSqlite({ dir, electronVersion: '45.4.1', fetchBinary });
    const upgraded = sqlite.ensureElectronSqlite({ dir, electronVersion: '46.0.0', fetchBinary });
    expect(upgraded).toMatchObject({ ok: false, firstFailure: true });
    expect(fetches).toBe(2);
  });
});

describe('npm start decides the mode before fetching anything', () => {
  const desktop = { args: [], platform: 'linux', env: { DISPLAY: ':0' }, electronInstalled: true };

  it('fetches for the desktop window where it can open', () => {
    expect(start.desktopWillStart(desktop)).toBe(true);
    expect(start.desktopWillStart({ ...desktop, platform: 'darwin', env: {} })).toBe(true);
  });

  it('does not in browser mode: --serve, no display, or no Electron binary', () => {
    expect(start.desktopWillStart({ ...desktop, args: ['--serve', 'runs/'] })).toBe(false);
    expect(start.desktopWillStart({ ...desktop, env: {} })).toBe(false);
    expect(start.desktopWillStart({ ...desktop, env: { WAYLAND_DISPLAY: 'wayland-0' } })).toBe(true);
    expect(start.desktopWillStart({ ...desktop, electronInstalled: false })).toBe(false);
  });
});

describe('engines', () => {
  const read = (path: string): { engines: Record<string, string> } =>
    JSON.parse(readFileSync(join(repoRoot, path), 'utf8')) as { engines: Record<string, string> };

  it('lets the CLI install on Node 20 and states what the desktop app needs where npm does not enforce it', () => {
    const { engines } = read('package.json');
    // npm checks only engines.node and engines.npm; `node-desktop` is read by people and by this test.
    expect(engines.node).toBe('>=20.19.0');
    const electron = read('node_modules/electron/package.json').engines.node!.replace(/\s+/g, '');
    expect(engines['node-desktop']).toBe(electron);
  });
});
