// `rlwatch export` flags: a data-export flag given with --incident is a usage error naming it, never silently ignored.

import { expect, test } from 'vitest';
import { runExport } from '../../../src/cli/export-command';
import { UsageError } from '../../../src/cli/usage';
import { tempDirs } from '../../helpers/temp-dirs';

const tmp = tempDirs();

test('--incident with --watch, --png or --width names the flags it does not take', async () => {
  const dir = tmp('rlwatch-export-flags-');
  for (const [flags, named] of [
    [['--watch'], '--watch'],
    [['--png', '--width', '800'], '--png, --width'],
  ] as const) {
    const err = await runExport([dir, '--incident', 'list', ...flags]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(`export --incident takes --out, --svg and --json only, not ${named}`);
  }
});
