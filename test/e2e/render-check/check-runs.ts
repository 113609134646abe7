// The render check over folders of runs: each folder served once, its runs judged, then their freshness; one line per run.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { checkFolder, type RunFailure, type RunResult } from './check-folder';
import { checkFreshness } from './freshness';
import { inspectRuns } from './inspect-runs';
import type { InvariantName } from './invariants';

/** A folder to serve, and the label its runs are reported and screenshotted under. */
export interface Folder {
  dir: string;
  label: string;
}

/** Corpus groups that are not run folders (nvidia-smi captures are system samples, not runs). */
const NOT_RUNS = new Set(['nvidia-smi']);

/** The corpus's run groups (tfevents, wandb, progress…), one served folder each; a plain folder is itself. */
export function foldersOf(dir: string): Folder[] {
  if (!existsSync(join(dir, 'MANIFEST.tsv'))) return [{ dir, label: basename(dir) }];
  return readdirSync(dir)
    .filter((name) => !NOT_RUNS.has(name) && statSync(join(dir, name)).isDirectory())
    .sort()
    .map((name) => ({ dir: join(dir, name), label: name }));
}

/** Checks every run of every folder; screenshots under `artifacts`; `onResult` hears each run as its folder is done. */
export async function checkRuns(
  browser: Browser,
  folders: readonly Folder[],
  artifacts: string,
  onResult: (r: RunResult) => void = () => {},
): Promise<RunResult[]> {
  const all: RunResult[] = [];
  for (const f of folders) {
    const runs = inspectRuns(f.dir);
    const results = await checkFolder(browser, f.dir, runs, f.label, artifacts);
    for (const fresh of await checkFreshness(browser, runs)) {
      const result = results.find((r) => r.run === fresh.run)!;
      if (fresh.note) result.notes.push(fresh.note);
      result.failures.push(...(fresh.failures ?? []).map((x) => ({ ...x, chart: null })));
    }
    results.forEach(onResult);
    all.push(...results);
  }
  return all;
}

/** The letter for each invariant ((a)–(f)). */
const LETTER: Record<InvariantName, string> = {
  'single-point-mark': 'a',
  'flat-line': 'b',
  'distinct-ticks': 'b',
  'labels-inside': 'c',
  'y-covers-data': 'd',
  freshness: 'e',
  'read-errors': 'f',
  'shows-its-run': '-',
  drawn: '-',
};

/** Charts named in a line before the rest are counted. */
const NAMED_CHARTS = 3;

/**
 * One line per run: `ok    folder/run (N charts)`, or `FAIL  folder/run: ` and per failed invariant its letter,
 * name, the charts it failed on and the first failure's detail, e.g.
 * `(a) single-point-mark on 2 charts ("loss", "kl"): loss: its one point has radius 0`.
 */
export function reportLine(r: RunResult): string {
  const name = `${r.folder}/${r.run}`;
  const notes = r.notes.map((n) => ` (${n})`).join('');
  if (r.failures.length === 0) return `ok    ${name} (${r.charts} charts)${notes}`;
  const byInvariant = new Map<InvariantName, RunFailure[]>();
  for (const f of r.failures) byInvariant.set(f.invariant, [...(byInvariant.get(f.invariant) ?? []), f]);
  const what = [...byInvariant].map(([invariant, failures]) => {
    const charts = [...new Set(failures.flatMap((f) => (f.chart === null ? [] : [f.chart])))];
    const named = charts.slice(0, NAMED_CHARTS).map((c) => JSON.stringify(c));
    if (charts.length > NAMED_CHARTS) named.push(`${charts.length - NAMED_CHARTS} more`);
    const where =
      charts.length === 0
        ? ''
        : ` on ${charts.length} chart${charts.length === 1 ? '' : 's'} (${named.join(', ')})`;
    return `(${LETTER[invariant]}) ${invariant}${where}: ${failures[0]!.detail}`;
  });
  return `FAIL  ${name}: ${what.join('; ')}${notes}`;
}
