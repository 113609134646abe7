// e2e screenshots: written under test-results/ always, copied into docs/ only when UPDATE_SCREENSHOTS is set (a test run never writes into the tree).

import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Locator, Page } from 'playwright-core';

const ROOT = join(import.meta.dirname, '..', '..');
/** Where e2e tests leave what they saw: screenshots, exported files. */
export const RESULTS = join(ROOT, 'test-results');

/** A part of the page to shoot, in CSS pixels. */
export interface Clip {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Saves a screenshot of `target` (the page, or one element) as test-results/`name`; with `docs` (a path under docs/,
 * e.g. `screenshots/samples.png`) and UPDATE_SCREENSHOTS set, copies it there for the README. Returns the path written.
 */
export async function saveScreenshot(
  target: Page | Locator,
  name: string,
  options: { docs?: string; clip?: Clip } = {},
): Promise<string> {
  mkdirSync(RESULTS, { recursive: true });
  const path = join(RESULTS, name);
  if ('goto' in target) await target.screenshot({ path, clip: options.clip });
  else await target.screenshot({ path });
  if (options.docs && process.env.UPDATE_SCREENSHOTS) {
    const to = join(ROOT, 'docs', options.docs);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(path, to);
  }
  return path;
}
