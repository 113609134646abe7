// The long-lived processes' V8 settings: no allocation-site pretenuring, set by a module both entries load first.

import { readFileSync } from 'node:fs';
import type * as V8 from 'node:v8';
import { join } from 'node:path';
import { expect, test, vi } from 'vitest';

const setFlags = vi.hoisted(() => vi.fn());
vi.mock('node:v8', async (importOriginal) => ({
  ...(await importOriginal<typeof V8>()),
  setFlagsFromString: setFlags,
}));

const root = join(import.meta.dirname, '..', '..');
const firstImport = (file: string): string | undefined =>
  /^import\s+(?:[^'"]*from\s+)?['"]([^'"]+)['"]/m.exec(readFileSync(join(root, file), 'utf8'))?.[1];

test('loading it turns allocation-site pretenuring off (per-delta garbage stays in the young space)', async () => {
  await import('../../src/core/heap-flags');
  expect(setFlags).toHaveBeenCalledWith('--no-allocation-site-pretenuring');
});

test('the CLI and the Electron main load it before anything else', () => {
  expect(firstImport('src/cli/index.ts')).toBe('../core/heap-flags');
  expect(firstImport('src/main/index.ts')).toBe('../core/heap-flags');
});
