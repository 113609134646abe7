// The render check of one served folder: every run selected in turn, every chart judged, a screenshot per run.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { openDashboard, type DashboardPage } from './dashboard-page';
import type { InspectedRun } from './inspect-runs';
import { checkChart, readErrorsShown, sessionsShown, type Failure } from './invariants';

/** How long a run's read errors (the cut-tail rule waits 3 s) or its earlier sessions may take to appear. */
const LATER_WAIT_MS = 10_000;

/** One failed invariant, on a chart (its tag) or on the run as a whole (chart null). */
export interface RunFailure extends Failure {
  chart: string | null;
}

export interface RunResult {
  /** The served folder's label (e.g. the corpus group) and the run's name in it. */
  folder: string;
  run: string;
  charts: number;
  failures: RunFailure[];
  /** Said of checks that could not be made (e.g. freshness of a format that cannot be appended safely). */
  notes: string[];
  screenshot: string | null;
}

/** A file name for a run's screenshot. */
const fileSafe = (name: string): string => name.replace(/[^\w.-]+/g, '_');

/** Failing charts photographed per run (beyond these the full-page screenshot and the JSON must do). */
const CHART_SHOTS_PER_RUN = 5;

/** What a caller may give checkFolder: a dashboard it already serves (kept open), and sessions known otherwise. */
export interface CheckOptions {
  /** The dashboard already serving `dir` (it watched the files being written); the caller closes it. */
  dashboard?: DashboardPage;
  /** Sessions per run from another oracle (a recording's ground truth) instead of inspect's count. */
  sessions?: ReadonlyMap<string, number>;
}

/** Checks `runs` (what `rlwatch inspect` found in `dir`) with `dir` served once; screenshots go to `artifacts/<label>/`. */
export async function checkFolder(
  browser: Browser,
  dir: string,
  runs: readonly InspectedRun[],
  label: string,
  artifacts: string,
  opts: CheckOptions = {},
): Promise<RunResult[]> {
  const shots = join(artifacts, fileSafe(label));
  mkdirSync(shots, { recursive: true });
  const dashboard = opts.dashboard ?? (await openDashboard(browser, dir));
  const results: RunResult[] = [];
  try {
    for (const r of runs) {
      const failures: RunFailure[] = [];
      await dashboard.select(r.run);
      const charts = await dashboard.readCharts(r.run);
      for (const { tag, state } of charts) {
        if (!state) failures.push({ chart: tag, invariant: 'drawn', detail: 'no chart was drawn' });
        else failures.push(...checkChart(state).map((f) => ({ ...f, chart: tag })));
      }
      // Earlier sessions are drawn once the settings arrive, after the current session's lines (the first charts
      // do not wait for them): on a loaded machine, read the charts again until they show, as a user would wait.
      const sessions = opts.sessions?.get(r.run) ?? r.sessions;
      const sessionFailures = async (read: typeof charts): Promise<Failure[]> =>
        sessionsShown(
          sessions,
          await dashboard.sessionsBadge(r.run),
          read.flatMap((c) => (c.state ? [c.state] : [])),
        );
      let shown = await sessionFailures(charts);
      for (const until = Date.now() + LATER_WAIT_MS; shown.length > 0 && Date.now() < until; ) {
        await new Promise((res) => setTimeout(res, 250));
        shown = await sessionFailures(await dashboard.readCharts(r.run));
      }
      failures.push(...shown.map((f) => ({ ...f, chart: null })));
      const failedCharts = [...new Set(failures.flatMap((f) => (f.chart === null ? [] : [f.chart])))].slice(
        0,
        CHART_SHOTS_PER_RUN,
      );
      for (const tag of failedCharts)
        await dashboard
          .screenshotChart(r.run, tag, join(shots, `${fileSafe(r.run)}--${fileSafe(tag)}.png`))
          .catch(() => {}); // a figure gone meanwhile: the failure stands without its picture
      // Some errors are known only after a while (a W&B log's cut tail, once it stays put): wait for them.
      let texts = await dashboard.errorTexts();
      for (
        let waited = 0;
        readErrorsShown(r.errors, texts).length > 0 && waited < LATER_WAIT_MS;
        waited += 250
      ) {
        await new Promise((res) => setTimeout(res, 250));
        texts = await dashboard.errorTexts();
      }
      failures.push(...readErrorsShown(r.errors, texts).map((f) => ({ ...f, chart: null })));
      const screenshot = join(shots, `${fileSafe(r.run)}.png`);
      await dashboard.scrollToTop();
      await dashboard.page.screenshot({ path: screenshot, fullPage: true });
      results.push({ folder: label, run: r.run, charts: charts.length, failures, notes: [], screenshot });
    }
  } finally {
    if (!opts.dashboard) await dashboard.close();
  }
  return results;
}
