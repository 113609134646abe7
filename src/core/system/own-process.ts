// Tells rlwatch's own processes (its CLI, agent, serve, Electron app and helpers) from a trainer by their command line.

import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, resolve, sep } from 'node:path';

/** Script paths only rlwatch runs: the installed command and the built CLI and Electron main bundles. */
const OWN_SCRIPTS = [
  ['bin', 'rlwatch.js'],
  ['out', 'main', 'cli.js'],
  ['out', 'main', 'index.js'],
].map((parts) => sep + parts.join(sep));

/** Names rlwatch runs under: the npm bin link (`rlwatch agent DIR` is `node /usr/bin/rlwatch agent DIR`). */
const OWN_NAMES = new Set(['rlwatch', 'rlwatch.js', 'rlwatch.exe']);

/** Reads a folder's package.json name (injectable for tests); null when there is none. */
export type PackageNameReader = (dir: string) => Promise<string | null>;

export const readPackageName: PackageNameReader = async (dir) => {
  try {
    const pkg = JSON.parse(await readFile(`${dir}/package.json`, 'utf8')) as { name?: unknown };
    return typeof pkg.name === 'string' ? pkg.name : null;
  } catch {
    return null;
  }
};

/**
 * Whether argv is an rlwatch process: `rlwatch …` (argv[0] or the script of a node-like interpreter named
 * rlwatch), bin/rlwatch.js, out/main/cli.js or out/main/index.js, or the Electron app as `rlwatch open`
 * starts it (`electron APP_ROOT [FOLDER]`, APP_ROOT a folder whose package.json is named rlwatch) and
 * Electron helper processes (`--type=…`).
 * Relative paths are resolved against the process's cwd (null: unknown, then only absolute ones count).
 */
export async function isRlwatchCommand(
  argv: readonly string[],
  cwd: string | null,
  packageName: PackageNameReader = readPackageName,
): Promise<boolean> {
  const head = argv.slice(0, 2);
  if (head.some((a) => OWN_NAMES.has(basename(a)))) return true;
  const paths = head.map((a) => (isAbsolute(a) ? a : cwd !== null ? resolve(cwd, a) : null));
  if (paths.some((p) => p !== null && OWN_SCRIPTS.some((s) => p.endsWith(s)))) return true;
  if (!/^electron(\.exe)?$/i.test(basename(argv[0] ?? ''))) return false;
  // Helpers (renderer, GPU, utility) inherit the app's cwd and are never anyone's trainer.
  if (argv.some((a) => a.startsWith('--type='))) return true;
  const app = paths[1];
  return app !== null && app !== undefined && (await packageName(app)) === 'rlwatch';
}
