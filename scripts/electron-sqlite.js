// Fetches better-sqlite3 built for Electron's ABI into build/electron/, beside (never over) the Node build.
//
// The Node build in node_modules/better-sqlite3 serves tests and the CLI; Electron main loads this one
// through better-sqlite3's `nativeBinding` option. prebuild-install runs in a temporary copy of the
// package so nothing in node_modules changes. Without network access to GitHub releases it fails, says
// why once (the failure is remembered beside the build; this script retries it), and the desktop app
// runs without persistence.
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
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const defaultDir = join(root, 'build', 'electron');
export const electronSqlitePath = join(defaultDir, 'better_sqlite3.node');

const versionOf = (pkg, fallback) => {
  try {
    return JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return fallback;
  }
};

const readText = (path) => (existsSync(path) ? readFileSync(path, 'utf8') : null);

/**
 * Returns {ok: true, path} or {ok: false, reason, firstFailure}; never throws. Fetches at most once per
 * (better-sqlite3, Electron, platform): a success is kept in `dir`, and so is a failure, which later
 * calls report with firstFailure false instead of waiting on the network again (`retryFailure` retries
 * it, `force` fetches even over a good build).
 */
export function ensureElectronSqlite({
  force = false,
  retryFailure = false,
  electronVersion,
  dir = defaultDir,
  fetchBinary = fetchWithPrebuildInstall,
  log = () => {},
} = {}) {
  const electron = electronVersion ?? versionOf('electron', '45.4.1');
  const sqlite = versionOf('better-sqlite3', null);
  if (!sqlite)
    return { ok: false, firstFailure: true, reason: 'better-sqlite3 is not installed (run npm install)' };
  const binary = join(dir, 'better_sqlite3.node');
  const stampPath = join(dir, 'better_sqlite3.stamp');
  const failedPath = join(dir, 'better_sqlite3.failed');
  const stamp = `better-sqlite3 ${sqlite} electron ${electron} ${process.platform}-${process.arch}`;
  if (!force && existsSync(binary) && readText(stampPath)?.trim() === stamp)
    return { ok: true, path: binary };
  const failed = readText(failedPath)?.split('\n');
  if (!force && !retryFailure && failed?.[0] === stamp)
    return { ok: false, firstFailure: false, reason: failed[1] };
  log(`fetching better-sqlite3 ${sqlite} for Electron ${electron} (${process.platform}-${process.arch})…`);
  mkdirSync(dir, { recursive: true });
  let fetched;
  try {
    fetched = fetchBinary({ electron, sqlite, dir });
  } catch (err) {
    fetched = { ok: false, why: err.message ?? String(err) };
  }
  if (!fetched.ok) {
    const reason = `could not fetch the Electron build of better-sqlite3: ${fetched.why}`;
    writeFileSync(failedPath, `${stamp}\n${reason}\n`);
    return { ok: false, firstFailure: true, reason };
  }
  copyFileSync(fetched.file, binary);
  if (fetched.temporary) rmSync(fetched.file, { force: true });
  writeFileSync(stampPath, stamp + '\n');
  rmSync(failedPath, { force: true });
  return { ok: true, path: binary };
}

/** prebuild-install in a temporary copy of the package, so nothing in node_modules changes. */
function fetchWithPrebuildInstall({ electron, dir }) {
  const prebuild = join(root, 'node_modules', 'prebuild-install', 'bin.js');
  if (!existsSync(prebuild)) return { ok: false, why: 'prebuild-install is not installed' };
  const work = mkdtempSync(join(tmpdir(), 'rlwatch-electron-sqlite-'));
  try {
    // prebuild-install reads name, version and binary host from package.json and writes build/Release.
    copyFileSync(join(root, 'node_modules', 'better-sqlite3', 'package.json'), join(work, 'package.json'));
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
      return { ok: false, why };
    }
    // Copied out before the temporary folder goes; ensureElectronSqlite moves it into place.
    const download = join(dir, 'better_sqlite3.node.download');
    copyFileSync(built, download);
    return { ok: true, file: download, temporary: true };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = ensureElectronSqlite({
    force: process.argv.includes('--force'),
    retryFailure: true,
    log: (m) => process.stdout.write(`rlwatch: ${m}\n`),
  });
  if (result.ok) {
    process.stdout.write(`rlwatch: Electron build of better-sqlite3 at ${result.path}\n`);
  } else {
    process.stderr.write(`rlwatch: ${result.reason}; the desktop app will run without persistence.\n`);
    process.exit(1);
  }
}
