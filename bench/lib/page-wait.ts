// Benchmarks' in-page wait: polls an in-page function once per animation frame until it returns something truthy.

import type { Page } from 'playwright-core';

/**
 * Waits in the page, checking once per animation frame, until `fn(...args)` returns something truthy, and
 * returns it (page.waitForFunction evaluates strings with eval, which the app's CSP forbids). `fn` is in-page
 * code as text (the bench tsconfig has no DOM types).
 */
export async function waitIn<T>(page: Page, fn: string, args: unknown[], timeoutMs: number): Promise<T> {
  return (await page.evaluate(`new Promise((resolve, reject) => {
    const f = ${fn};
    const args = ${JSON.stringify(args)};
    const stop = setTimeout(() => reject(new Error('timed out waiting in the page')), ${timeoutMs});
    const tick = () => {
      let v = false;
      try { v = f(...args); } catch {}
      if (v) { clearTimeout(stop); resolve(v); } else requestAnimationFrame(tick);
    };
    tick();
  })`)) as T;
}
