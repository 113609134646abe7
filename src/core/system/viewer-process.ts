// Tells a process that only looks at runs (tail -f, less, tensorboard, a browser, a test driver) from a trainer, by its command line.

import { basename } from 'node:path';

/** Programs that read or show a run's files and never train one. */
const VIEWERS = new Set([
  'tail',
  'less',
  'more',
  'most',
  'cat',
  'head',
  'bat',
  'watch',
  'view',
  'vi',
  'vim',
  'nvim',
  'nano',
  'emacs',
  'code',
  'tensorboard',
  'chrome',
  'chromium',
  'chromium-browser',
  'google-chrome',
  'firefox',
  'msedge',
  'headless_shell',
  'chrome_crashpad_handler',
  'vitest',
  'playwright',
  'jest',
]);

/** Interpreters whose script (or `-m module`) names the program. */
const INTERPRETER = /^(python[\d.]*|node|nodejs|bun|deno)$/i;

/** The program's name, lower case, without an extension: `/usr/bin/tail` → tail, `tensorboard.main` → tensorboard. */
const programName = (arg: string): string =>
  basename(arg)
    .toLowerCase()
    .replace(/\.(exe|js|mjs|cjs|py)$/, '')
    .split('.')[0]!;

/** Whether argv runs a viewer: its program, or an interpreter's script or `-m` module, is one of VIEWERS. */
export function isViewerCommand(argv: readonly string[]): boolean {
  const head = argv[0];
  if (head === undefined) return false;
  if (VIEWERS.has(programName(head))) return true;
  if (!INTERPRETER.test(basename(head))) return false;
  const m = argv.indexOf('-m');
  const script = m >= 0 ? argv[m + 1] : argv.slice(1).find((a) => !a.startsWith('-'));
  return script !== undefined && VIEWERS.has(programName(script));
}
