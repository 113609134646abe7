// `npm start`: build the app if the sources changed, then `rlwatch open` (the live demo when no folder is given).
import { spawnSync } from 'node:child_process';
import { builtCli, buildIfStale, root } from './lib/build.js';

const status = buildIfStale();
if (status !== 0) process.exit(status);
const r = spawnSync(process.execPath, [builtCli, 'open', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
