// The tests' temp folders: made under the OS temp folder, removed after the file's tests.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * A `tmp(prefix)` that makes a fresh folder each call; all are removed in an `afterAll` registered now (after
 * hooks run in reverse order, so a file's own later `afterAll`, e.g. closing what reads them, runs first).
 */
export function tempDirs(): (prefix: string) => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return (prefix) => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}
