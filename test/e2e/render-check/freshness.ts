// Render check (e): copies of the appendable runs grow by one row, and the run list's freshness must move.

import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { openDashboard } from './dashboard-page';
import type { InspectedRun } from './inspect-runs';
import { freshnessMoved, type Failure, type FreshnessView } from './invariants';

/** Formats a row can be appended to safely (a copy of the last line); the rest are framed or whole documents. */
const APPENDABLE = new Set(['csv', 'jsonl']);

export interface FreshnessResult {
  run: string;
  /** null: not checked, with the reason in `note`. */
  failures: Failure[] | null;
  note: string | null;
}

/** The file a row is appended to: the run's last appendable source that has a data row to copy. */
function appendTarget(run: InspectedRun): string | null {
  const files = run.files.filter((f) => APPENDABLE.has(f.format) && f.records > 0);
  return files.at(-1)?.file ?? null;
}

/** Appends a copy of the file's last non-empty line (a trainer logging one more row of the same shape). */
function appendLastLine(path: string): void {
  const text = readFileSync(path, 'utf8');
  const last =
    text
      .split(/\r?\n/)
      .filter((l) => l.trim() !== '')
      .at(-1) ?? '';
  appendFileSync(path, `${text.endsWith('\n') ? '' : '\n'}${last}\n`);
}

const view = async (page: Page, run: string): Promise<FreshnessView> => {
  const item = page.locator(`.run-item[data-run=${JSON.stringify(run)}]`);
  return {
    text: await item.locator('.run-meta').first().innerText(),
    status: (await item.getAttribute('data-status')) ?? '',
  };
};

/**
 * Copies each appendable run's files (timestamps kept, so the copy looks as old as the original) into one
 * temporary folder, serves it once, appends a row to each and waits for its freshness to move.
 */
export async function checkFreshness(
  browser: Browser,
  runs: readonly InspectedRun[],
): Promise<FreshnessResult[]> {
  const results: FreshnessResult[] = [];
  const copies: { run: string; name: string; target: string }[] = [];
  const root = mkdtempSync(join(tmpdir(), 'rlwatch-render-check-'));
  try {
    runs.forEach((r, i) => {
      const target = appendTarget(r);
      if (!target) {
        const formats = [...new Set(r.files.map((f) => f.format))].join(', ');
        const empty = r.files.some((f) => APPENDABLE.has(f.format));
        results.push({
          run: r.run,
          failures: null,
          note: empty
            ? 'freshness not checked: its CSV/JSONL files have no data row to copy'
            : `freshness not checked: ${formats} cannot be appended safely`,
        });
        return;
      }
      const name = `run${i}`;
      mkdirSync(join(root, name));
      for (const { file } of r.files) {
        const from = join(r.dir, file);
        const to = join(root, name, file);
        copyFileSync(from, to);
        chmodSync(to, 0o644); // the corpus is read-only; its copies must take the appended row
        const st = statSync(from);
        utimesSync(to, st.atime, st.mtime);
      }
      copies.push({ run: r.run, name, target: join(root, name, target) });
    });
    if (copies.length === 0) return results;
    const dashboard = await openDashboard(browser, root);
    try {
      for (const c of copies) {
        await dashboard.page.locator(`.run-item[data-run=${JSON.stringify(c.name)}]`).waitFor();
        // Until the run is read its freshness is "never"; give it a moment (a run with no data stays so).
        let before = await view(dashboard.page, c.name);
        for (let i = 0; i < 50 && before.text.includes('never'); i++) {
          await new Promise((r) => setTimeout(r, 100));
          before = await view(dashboard.page, c.name);
        }
        appendLastLine(c.target);
        let failures = freshnessMoved(before, before);
        const deadline = Date.now() + 10_000;
        while (failures.length > 0 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 250));
          failures = freshnessMoved(before, await view(dashboard.page, c.name));
        }
        results.push({ run: c.run, failures, note: null });
      }
    } finally {
      await dashboard.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return results;
}
