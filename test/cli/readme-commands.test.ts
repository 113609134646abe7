// README's "Command line" section names every flag `rlwatch --help` names: a flag added to the CLI is documented where people look.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { HELP } from '../../src/cli/usage';

const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

/** The long flags a text names (`--no-health-bands`, not a `--` dash inside prose). */
function flags(text: string): Set<string> {
  return new Set(text.match(/(?<![\w-])--[a-z][a-z0-9-]*/g) ?? []);
}

test("every flag of rlwatch --help is in README's command table or the lines under it", () => {
  const start = README.indexOf('## Command line');
  const end = README.indexOf('\n## ', start + 1);
  expect(start).toBeGreaterThanOrEqual(0);
  const section = flags(README.slice(start, end));
  const missing = [...flags(HELP)].filter((f) => !section.has(f));
  expect(missing).toEqual([]);
  // The flags a review found missing, by name: the export figure options.
  expect(section).toContain('--paper');
  expect(section).toContain('--no-health-bands');
});
