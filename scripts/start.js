// `npm start`: build the app if the sources changed, fetch the Electron build of SQLite once, then `rlwatch open`.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtCli, buildIfStale, root } from './lib/build.js';
import { ensureElectronSqlite } from './electron-sqlite.js';

/** Whether Electron's binary is on disk (electron's npm package records its name in path.txt). */
function electronBinaryInstalled() {
  const dir = join(root, 'node_modules', 'electron');
  const pathFile = join(dir, 'path.txt');
  return existsSync(pathFile) && existsSync(join(dir, 'dist', readFileSync(pathFile, 'utf8').trim()));
}

/**
 * Whether `rlwatch open` will open the desktop window rather than serve the UI to a browser: the same
 * conditions as findElectron in src/cli/electron-launch.ts (a display on Linux, Electron's binary), known
 * without spawning anything. Browser mode keeps its data through Node's own better-sqlite3.
 */
export function desktopWillStart({ args, platform, env, electronInstalled }) {
  if (args.includes('--serve')) return false;
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return false;
  return electronInstalled;
}

function main() {
  const status = buildIfStale();
  if (status !== 0) return status;
  const args = process.argv.slice(2);
  const desktop = desktopWillStart({
    args,
    platform: process.platform,
    env: process.env,
    electronInstalled: electronBinaryInstalled(),
  });
  if (desktop) {
    // Without it the desktop app still runs, in memory (it says so in the window); told once, not every start.
    const sqlite = ensureElectronSqlite({ log: (m) => process.stdout.write(`rlwatch: ${m}\n`) });
    if (!sqlite.ok && sqlite.firstFailure)
      process.stderr.write(
        `rlwatch: warning: ${sqlite.reason}; the desktop app will run without persistence ` +
          `(npm run electron:sqlite retries).\n`,
      );
  }
  const r = spawnSync(process.execPath, [builtCli, 'open', ...args], { cwd: root, stdio: 'inherit' });
  return r.status ?? 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exit(main());
