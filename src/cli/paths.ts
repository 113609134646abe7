// Where the built app lives relative to the bundled CLI (out/main/cli.js), and the package version.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The nearest folder at or above `from` holding package.json: this module may be bundled into out/main/cli.js or a
 * chunk below it (out/main/chunks/), or run from src/cli in dev. */
function packageRoot(from: string): string {
  for (let dir = from, i = 0; i < 6; i++, dir = dirname(dir))
    if (existsSync(join(dir, 'package.json'))) return dir;
  return resolve(from, '..', '..');
}

/** The project (or installed package) root. */
export const appRoot = packageRoot(here);
export const rendererDir = join(appRoot, 'out', 'renderer');

export function appVersion(): string {
  try {
    return (
      (JSON.parse(readFileSync(join(appRoot, 'package.json'), 'utf8')) as { version?: string }).version ??
      '0.0.0'
    );
  } catch {
    return '0.0.0';
  }
}
