// Where the render check keeps its screenshots: a git-ignored folder of the test run's artifacts.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from './check-folder';

export const ARTIFACTS = join(import.meta.dirname, '..', '..', '..', 'test-results', 'render-check');

/** Keeps every failure in full beside the screenshots (`<name>.json`): the printed lines are summaries. */
export function saveResults(name: string, results: readonly RunResult[]): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.json`);
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
  return path;
}
