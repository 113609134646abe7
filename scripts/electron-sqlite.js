// Fetches better-sqlite3 built for Electron's ABI into build/electron/, beside (never over) the Node build.
//
// The Node build in node_modules/better-sqlite3 serves tests and the CLI; Electron main loads this one
// through better-sqlite3's `nativeBinding` option. prebuild-install runs in a temporary copy of the
// package so nothing in node_modules changes. Without network access to GitHub releases it fails, says
// why, and the desktop app runs without persistence.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const electronSqlitePath = join(root, 'build', 'electron', 'better_sqlite3.node');
const stampPath = join(root, 'build', 'electron', 'better_sqlite3.stamp');

const versionOf = (pkg, fallback) => {
  try {
    return JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return fallback;
  }
};

/** Returns {ok: true, path} or {ok: false, reason}; never throws. */
export function ensureElectronSqlite({ force = false, electronVersion, log = () => {} } = {}) {
  const electron = electronVersion ?? versionOf('electron', '45.4.1');
  const sqlite = versionOf('better-sqlite3', null);
  if (!sqlite) return { ok: false, reason: 'better-sqlite3 is not installed (run npm install)' };
  const stamp = `better-sqlite3 ${sqlite} electron ${electron} ${process.platform}-${process.arch}`;
  if (!force && existsSync(electronSqlitePath) && existsSync(stampPath)) {
    if (readFileSync(stampPath, 'utf8').trim() === stamp) return { ok: true, path: electronSqlitePath };
  }
  const prebuild = join(root, 'node_modules', 'prebuild-install', 'bin.js');
  if (!existsSync(prebuild)) return { ok: false, reason: 'prebuild-install is not installed' };
  const work = mkdtempSync(join(tmpdir(), 'rlwatch-electron-sqlite-'));
  try {
    // prebuild-install reads name, version and binary host from package.json and writes build/Release.
    copyFileSync(join(root, 'node_modules', 'better-sqlite3', 'package.json'), join(work, 'package.json'));
    log(`fetching better-sqlite3 ${sqlite} for Electron ${electron} (${process.platform}-${process.arch})…`);
    const r = spawnSync(
      process.execPath,
      [
        prebuild,
        '--runtime',
        'electron',
        '--target',
        electron,
        '--arch',
        process.arch,
        '--platform',
        process.platform,
      ],
      { cwd: work, encoding: 'utf8', timeout: 120_000, env: { ...process.env, npm_config_loglevel: 'warn' } },
    );
    const built = join(work, 'build', 'Release', 'better_sqlite3.node');
    if (r.error || r.status !== 0 || !existsSync(built)) {
      const why =
        r.error?.message ??
        (`${r.stderr ?? ''}${r.stdout ?? ''}`.trim().split('\n').filter(Boolean).slice(-2).join(' / ') ||
          `prebuild-install exited with status ${r.status}`);
      return { ok: false, reason: `could not fetch the Electron build of better-sqlite3: ${why}` };
    }
    mkdirSync(dirname(electronSqlitePath), { recursive: true });
    copyFileSync(built, electronSqlitePath);
    writeFileSync(stampPath, stamp + '\n');
    return { ok: true, path: electronSqlitePath };
  } catch (err) {
    return {
      ok: false,
      reason: `could not fetch the Electron build of better-sqlite3: ${err.message ?? err}`,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = ensureElectronSqlite({
    force: process.argv.includes('--force'),
    log: (m) => process.stdout.write(`rlwatch: ${m}\n`),
  });
  if (result.ok) {
    process.stdout.write(`rlwatch: Electron build of better-sqlite3 at ${result.path}\n`);
  } else {
    process.stderr.write(`rlwatch: ${result.reason}; the desktop app will run without persistence.\n`);
    process.exit(1);
  }
}
