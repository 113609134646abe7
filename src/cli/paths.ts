// Where the built app lives relative to the bundled CLI (out/main/cli.js), and the package version.

import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The project (or installed package) root: two levels above out/main, or above src/cli in dev. */
export const appRoot = resolve(here, '..', '..');
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
