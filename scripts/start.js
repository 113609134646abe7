// `npm start`: build the app if the sources changed, fetch the Electron build of SQLite, then `rlwatch open`.
import { spawnSync } from 'node:child_process';
import { builtCli, buildIfStale, root } from './lib/build.js';
import { ensureElectronSqlite } from './electron-sqlite.js';

const status = buildIfStale();
if (status !== 0) process.exit(status);
// Without it the desktop app still runs, in memory (it says so in the window); serve mode never needs it.
const sqlite = ensureElectronSqlite({ log: (m) => process.stdout.write(`rlwatch: ${m}\n`) });
if (!sqlite.ok)
  process.stderr.write(`rlwatch: warning: ${sqlite.reason}; the desktop app will run without persistence.\n`);
const r = spawnSync(process.execPath, [builtCli, 'open', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
