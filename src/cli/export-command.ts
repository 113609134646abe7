// `rlwatch export PATH --out FOLDER`: a run's data (CSV, JSON history) and figures (PNG, SVG), once or kept up to date.

import { userThresholds } from '../core/alerts/user-thresholds';
import {
  exportData,
  ExportUsageError,
  type DataExportOptions,
  type ExportFileEvent,
  type ExportReport,
} from '../core/export/export-run';
import { watchExport } from '../core/export/export-watch';
import { DEFAULT_FIGURE, MAX_FIGURE_SIDE } from '../core/export/figure-render';
import { PAPER_SIZE } from '../shared/charts/figure-style';
import { inspectPath } from '../core/inspect';
import { replayAlerts } from '../core/watch/replay-incident';
import type { BandKind } from '../shared/compare/group-stats';
import { buildRunsTable, runsTableCsv } from '../shared/compare/runs-table';
import type { AlertInfo, Settings } from '../shared/domain';
import { runIncidentExport } from './incident-command';
import { exportSamples } from './samples-export';
import { tableInput } from './runs-table-output';
import { terminalSafe } from './terminal-text';
import { parseFlags, parseNumber, untilSignal, UsageError } from './usage';
import { savedSettings } from './watch-command';

/** Exit status of an export that wrote some files but not all. */
export const EXIT_PARTIAL = 1;

/** `--every` when omitted: seed 003 watches its plot with `watch -n 30`. */
export const DEFAULT_EVERY_S = 30;

/** Flags of a data export that a snapshot (`--incident`) has no use for: named as a usage error, not ignored. */
const INCIDENT_IGNORES = [
  'csv',
  'png',
  'runs',
  'tags',
  'width',
  'height',
  'scale',
  'theme',
  'paper',
  'no-health-bands',
  'smoothing',
  'log-y',
  'log-y-tags',
  'watch',
  'every',
  'groups',
  'band',
  'iqm',
  'samples',
] as const;

function regexFlag(name: string, raw: string | boolean | undefined): RegExp | undefined {
  if (typeof raw !== 'string') return undefined;
  try {
    return new RegExp(raw);
  } catch (err) {
    throw new UsageError(
      `--${name} is not a valid regular expression: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

/** Progress on stderr: a bar redrawn in place on a terminal, one line per file otherwise. */
function progressPrinter(tty: boolean): (e: ExportFileEvent) => void {
  return (e) => {
    const what = e.kind === 'written' ? `wrote ${terminalSafe(e.path)}` : `FAILED ${terminalSafe(e.message)}`;
    if (tty) {
      const width = 24;
      const filled = Math.min(width, Math.round((e.done / Math.max(1, e.total)) * width));
      process.stderr.write(
        `\r\x1b[K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${e.done}/${e.total} ${what}`,
      );
      if (e.kind === 'failed') process.stderr.write('\n');
    } else {
      process.stderr.write(`rlwatch: ${e.done}/${e.total} ${what}\n`);
    }
  };
}

/**
 * The folder's alerts as `rlwatch watch` (and the window) raise them: the folder replayed through the one
 * AlertService, so headless figures mark the same alerts as the window's "Export run…". With `--runs`, only the
 * runs exported are replayed (alerts are judged per run).
 */
export function replayedAlerts(
  settings: Settings,
  runs?: RegExp,
): (root: string) => Promise<readonly AlertInfo[]> {
  return async (root) => {
    const replay = await replayAlerts(root, settings, runs ? (run) => runs.test(run) : undefined);
    try {
      return replay.list();
    } finally {
      await replay.close();
    }
  };
}

/** `--report json|text`: how the summary of what was written is printed (default a line of text). */
function reportFormat(raw: string | boolean | undefined): 'json' | 'text' {
  const v = str(raw) ?? 'text';
  if (v !== 'json' && v !== 'text') throw new UsageError(`--report must be json or text, got '${v}'`);
  return v;
}

/** The export's options from the flags (formats: none named means CSV, JSON and PNG). */
function exportOptions(values: Record<string, string | boolean | undefined>): DataExportOptions {
  const named = ['csv', 'json', 'png', 'svg'].some((f) => values[f] === true);
  const theme = str(values.theme) ?? DEFAULT_FIGURE.theme;
  const settings = savedSettings();
  if (theme !== 'light' && theme !== 'dark')
    throw new UsageError(`--theme must be light or dark, got '${theme}'`);
  // --paper: a journal column's size at 300 dpi and its fonts and line widths (a size given still wins).
  const size = values.paper === true ? PAPER_SIZE : DEFAULT_FIGURE;
  return {
    out: values.out as string,
    csv: values.csv === true || !named,
    json: values.json === true || !named,
    png: values.png === true || !named,
    svg: values.svg === true,
    figure: {
      width: parseNumber('width', str(values.width), 1, MAX_FIGURE_SIDE) ?? size.width,
      height: parseNumber('height', str(values.height), 1, MAX_FIGURE_SIDE) ?? size.height,
      scale: parseNumber('scale', str(values.scale), 0.1, 8) ?? size.scale,
      theme,
      style: values.paper === true ? 'paper' : 'screen',
      healthBands: values['no-health-bands'] !== true,
    },
    smoothing: parseNumber('smoothing', str(values.smoothing), 0, 0.999) ?? 0,
    ...(values['log-y'] === true
      ? { logY: true }
      : typeof values['log-y-tags'] === 'string'
        ? { logY: regexFlag('log-y-tags', values['log-y-tags']) }
        : {}),
    userThresholds: userThresholds(settings),
    alerts: replayedAlerts(settings, regexFlag('runs', values.runs)),
    runs: regexFlag('runs', values.runs),
    tags: regexFlag('tags', values.tags),
    ...(values.groups === true ? { groups: { band: bandFlag(values.band), iqm: values.iqm === true } } : {}),
  };
}

/** `--band minmax|std|ci95`: what a seed group's band shows (default min–max, as the window's). */
function bandFlag(raw: string | boolean | undefined): BandKind {
  const v = str(raw) ?? 'minmax';
  if (v !== 'minmax' && v !== 'std' && v !== 'ci95')
    throw new UsageError(`--band must be minmax, std or ci95, got '${v}'`);
  return v;
}

/** runs_table.csv: the table `rlwatch inspect PATH --table --csv` prints, of the runs exported. */
function runsTableOf(path: string): (runs: readonly string[]) => Promise<string> {
  return async (runs) => {
    const chosen = new Set(runs);
    const report = await inspectPath(path);
    return runsTableCsv(buildRunsTable(report.runs.filter((r) => chosen.has(r.run)).map(tableInput)), {
      groups: true,
    });
  };
}

/** One round's summary: the JSON report on stdout with --report json, else a line; notices and failures on stderr. */
function printReport(report: ExportReport, json: boolean, noticesShown: Set<string>): void {
  if (json) process.stdout.write(JSON.stringify(report) + '\n');
  else {
    process.stdout.write(
      `rlwatch: exported ${report.runs.length} run(s) to ${terminalSafe(report.out)}: ${report.written.length} file(s) written` +
        (report.failed.length ? `, ${report.failed.length} failed` : '') +
        '\n',
    );
  }
  for (const n of report.notices) {
    if (noticesShown.has(n)) continue;
    noticesShown.add(n);
    process.stderr.write(`rlwatch: ${terminalSafe(n)}\n`);
  }
  for (const f of report.failed) process.stderr.write(`rlwatch: ${terminalSafe(f.message)}\n`);
}

function asUsageError(err: unknown, path: string): unknown {
  if (err instanceof ExportUsageError) return new UsageError(err.message);
  if (err instanceof UsageError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new UsageError(`${path} does not exist`);
  return new UsageError(err instanceof Error ? err.message : String(err));
}

export async function runExport(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    out: { type: 'string' },
    csv: { type: 'boolean' },
    json: { type: 'boolean' },
    png: { type: 'boolean' },
    svg: { type: 'boolean' },
    runs: { type: 'string' },
    tags: { type: 'string' },
    width: { type: 'string' },
    height: { type: 'string' },
    scale: { type: 'string' },
    theme: { type: 'string' },
    paper: { type: 'boolean' },
    'no-health-bands': { type: 'boolean' },
    smoothing: { type: 'string' },
    'log-y': { type: 'boolean' },
    'log-y-tags': { type: 'string' },
    groups: { type: 'boolean' },
    band: { type: 'string' },
    iqm: { type: 'boolean' },
    report: { type: 'string' },
    watch: { type: 'boolean' },
    every: { type: 'string' },
    incident: { type: 'string' },
    samples: { type: 'boolean' },
  });
  if (positionals.length !== 1)
    throw new UsageError('export needs exactly one path: rlwatch export PATH --out FOLDER');
  if (typeof values.incident === 'string') {
    const unused = INCIDENT_IGNORES.filter((f) => values[f] !== undefined);
    if (unused.length > 0)
      throw new UsageError(
        `export --incident takes --out, --svg and --json only, not --${unused.join(', --')}`,
      );
    return runIncidentExport(positionals[0]!, values.incident, {
      out: typeof values.out === 'string' ? values.out : undefined,
      svg: values.svg === true,
      // A snapshot writes no JSON data: --json prints its report (as --report json does).
      json: values.json === true || reportFormat(values.report) === 'json',
    });
  }
  if (typeof values.out !== 'string' || values.out === '') throw new UsageError('export needs --out FOLDER');
  if (values.every !== undefined && values.watch !== true) throw new UsageError('--every goes with --watch');
  if (values['log-y'] === true && values['log-y-tags'] !== undefined)
    throw new UsageError('--log-y (every figure) and --log-y-tags REGEX (some tags) exclude each other');
  if ((values.band !== undefined || values.iqm !== undefined) && values.groups !== true)
    throw new UsageError('--band and --iqm go with --groups');
  const path = positionals[0]!;
  if (values.samples === true) {
    if (values.watch === true) throw new UsageError('--samples does not go with --watch');
    const report = await exportSamples(path, values.out, regexFlag('runs', values.runs)).catch(
      (err: unknown) => {
        throw asUsageError(err, path);
      },
    );
    for (const f of report.written) process.stderr.write(`rlwatch: wrote ${terminalSafe(f)}\n`);
    for (const f of report.failed)
      process.stderr.write(`rlwatch: FAILED ${terminalSafe(f.path)}: ${terminalSafe(f.message)}\n`);
    process.stdout.write(
      `rlwatch: exported samples to ${terminalSafe(values.out)}: ${report.written.length} file(s) written\n`,
    );
    // --samples alone writes the samples only; with formats named, those are exported too.
    if (!['csv', 'json', 'png', 'svg'].some((f) => values[f] === true))
      return report.failed.length > 0 ? EXIT_PARTIAL : 0;
  }
  const tty = process.stderr.isTTY === true;
  // --json writes the JSON data (training_metrics.json); --report json prints the JSON report.
  const json = reportFormat(values.report) === 'json';
  const opts: DataExportOptions = {
    ...exportOptions(values),
    ...(values.csv === true ? { runsTable: runsTableOf(path) } : {}),
    onFile: progressPrinter(tty),
  };
  const noticesShown = new Set<string>();
  const endBar = (): void => {
    if (tty) process.stderr.write('\r\x1b[K');
  };

  if (values.watch === true) {
    const everyS = parseNumber('every', str(values.every), 1, 86_400) ?? DEFAULT_EVERY_S;
    const stop = new AbortController();
    void untilSignal().then(() => stop.abort());
    let last: ExportReport | null;
    try {
      last = await watchExport(path, opts, {
        everyMs: everyS * 1000,
        signal: stop.signal,
        onRound: (report) => {
          endBar();
          printReport(report, json, noticesShown);
        },
      });
    } catch (err) {
      throw asUsageError(err, path);
    }
    // Stopped by Ctrl-C: the status says whether the last round wrote everything.
    return last && last.failed.length > 0 ? EXIT_PARTIAL : 0;
  }

  let report: ExportReport;
  try {
    report = await exportData(path, opts);
  } catch (err) {
    throw asUsageError(err, path);
  }
  endBar();
  printReport(report, json, noticesShown);
  return report.failed.length > 0 ? EXIT_PARTIAL : 0;
}
