// Builds the app with electron-vite when any source is newer than the last build (shared by start and test).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const builtCli = join(root, 'out', 'main', 'cli.js');

function newestMtime(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

export function isBuildStale() {
  if (!existsSync(builtCli) || !existsSync(join(root, 'out', 'renderer', 'index.html'))) return true;
  const inputs = ['src', 'electron.vite.config.ts', 'svelte.config.js', 'package.json'].map((p) =>
    join(root, p),
  );
  return Math.max(...inputs.map(newestMtime)) > statSync(builtCli).mtimeMs;
}

/** Returns the exit status of the build (0 when nothing needed building). */
export function buildIfStale() {
  if (!isBuildStale()) return 0;
  process.stdout.write('rlwatch: building the app (electron-vite build)…\n');
  const r = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  return r.status ?? 1;
}
