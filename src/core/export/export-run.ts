// Headless export of runs: full-resolution CSV (long and wide), JSON history and figures (PNG/SVG), written safely.

import { mkdir, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { runStyleIndexes } from '../../shared/charts/chart-theme';
import type { Figure } from '../../shared/charts/figure';
import type { BandKind } from '../../shared/compare/group-stats';
import type { AlertInfo } from '../../shared/domain';
import type { SourceFormatName } from '../../shared/formats';
import { resolveThresholds, setValues, type Thresholds } from '../health';
import { findRuns, readRunWhole, type RunRead } from '../inspect';
import type { ScalarSeries } from '../series/scalar-series';
import { safeFileName, UniqueNames } from '../../shared/file-names';
import {
  checkFigureOptions,
  DEFAULT_FIGURE,
  encodesAhead,
  FigureSizeError,
  renderFigureAsync,
  type FigureFormat,
  type FigureOptions,
} from './figure-render';
import {
  mainReward,
  planRunFigures,
  shownSeries,
  type FigureRun,
  type FigureSetOptions,
  type PlannedFigure,
} from './figure-set';
import { MAX_COMPARED_RUNS, planComparison, TagComparisons } from './figure-compare';
import { GroupFigures } from './group-figures';
import { ExportWriteError, writeAtomically } from './safe-write';
import { jsonHistory, longCsv, wideCsv, wideTable, type RunSeries } from './tables';
import { shownViews } from '../series/shown-views';
import type { TagSource } from '../series/writers';

export interface DataExportOptions {
  /** Folder the files go to (created); never inside the exported folder. */
  out: string;
  csv: boolean;
  json: boolean;
  /** Figures: seed 003's set, one per tag, a comparison of several runs; as PNG and/or SVG. */
  png?: boolean;
  svg?: boolean;
  /** Figure size (CSS pixels), PNG pixel ratio, theme, style (screen or paper) and health bands; defaults
   * 1600×900, scale 1, light, screen, health bands drawn. */
  figure?: Partial<Pick<FigureOptions, 'width' | 'height' | 'scale' | 'theme' | 'style' | 'healthBands'>>;
  /** EMA weight of the figures' smoothed lines, 0 = off (default). */
  smoothing?: number;
  /** Log y-axes: on every figure (true) or on the panels of the tags a RegExp matches. */
  logY?: boolean | RegExp;
  /** The user's threshold settings (over each run's config, over the defaults), as the app resolves them. */
  userThresholds?: Partial<Thresholds>;
  /**
   * Alerts to mark on the figures (each on its run and tag), or how to get them for the folder read (headless:
   * a replay through the one AlertService, so the figures match the window's); asked once, only for figures.
   */
  alerts?: readonly AlertInfo[] | ((root: string) => Promise<readonly AlertInfo[]>);
  /** Per-tag figures of one run at most (default 100, with a notice naming --tags). */
  maxTagFigures?: number;
  /**
   * Seed group figures (`groups/GROUP/TAG`, `groups/comparison/TAG`): runs that differ only in their seed drawn
   * as a mean with a band (and the IQM), with the band's meaning on the figure; needs a figure format.
   */
  groups?: { band: BandKind; iqm: boolean };
  /** The runs table of the exported runs as CSV (the CLI's `inspect --table --csv`), written as runs_table.csv. */
  runsTable?: (runs: readonly string[]) => Promise<string>;
  /** Only runs whose name matches; only tags whose name matches. */
  runs?: RegExp;
  tags?: RegExp;
  /** Stops the export before its next file (files written so far stay whole: each write is atomic). */
  signal?: AbortSignal;
  /** Called as each file is finished (or fails): progress for long exports; `total` grows as runs are read. */
  onFile?: (event: ExportFileEvent) => void;
}

export type ExportFileEvent =
  | { kind: 'written'; path: string; bytes: number; done: number; total: number }
  | { kind: 'failed'; path: string; message: string; done: number; total: number };

export interface ExportReport {
  root: string;
  out: string;
  runs: string[];
  written: { path: string; bytes: number }[];
  failed: { path: string; message: string }[];
  /** What was left out on purpose and why (a figure a run has no tags for, the per-tag figure cap). */
  notices: string[];
}

/** The folder of the seed group figures and the runs table's file, beside the run folders. */
export const GROUPS_FOLDER = 'groups';
export const RUNS_TABLE = 'runs_table.csv';

export class ExportUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExportUsageError';
  }
}

/** A run name as one folder name (`safeFileName`, at most `maxSize`), '.' the root's name. */
export function runFolderName(run: string, root: string, maxSize?: number): string {
  return safeFileName(run === '.' ? (root.split(sep).filter(Boolean).pop() ?? 'run') : run, maxSize);
}

/** Whether `path` is `root` or below it (`..out` is a name below it, not a way out). */
function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return !(rel === '..' || rel.startsWith('..' + sep) || isAbsolute(rel));
}

/** `path` with its nearest existing ancestor's symlinks resolved (the rest does not exist yet). */
async function realPathSoFar(path: string): Promise<string> {
  const tail: string[] = [];
  let p = path;
  for (;;) {
    try {
      return join(await realpath(p), ...tail);
    } catch {
      const parent = dirname(p);
      if (parent === p) return path;
      tail.unshift(basename(p));
      p = parent;
    }
  }
}

/** The figure look, checked once before anything is read (a bad size is a usage error, not N failed files). */
function figureLook(opts: DataExportOptions): { formats: FigureFormat[]; look: FigureOptions } {
  const formats: FigureFormat[] = [
    ...(opts.png ? ['png' as const] : []),
    ...(opts.svg ? ['svg' as const] : []),
  ];
  try {
    const look = checkFigureOptions({ ...DEFAULT_FIGURE, ...opts.figure, format: formats[0] ?? 'png' });
    return { formats, look };
  } catch (err) {
    if (err instanceof FigureSizeError) throw new ExportUsageError(err.message);
    throw err;
  }
}

/** `out` resolved; an ExportUsageError when it is `root` or below it (symlinks resolved): rlwatch never writes where it reads. */
export async function outsideReadFolder(out: string, root: string): Promise<string> {
  const full = resolve(out);
  if (isInside(await realPathSoFar(full), await realpath(root))) {
    throw new ExportUsageError(
      `--out ${full} is inside ${root}: rlwatch never writes into the folder it reads; choose a folder outside it`,
    );
  }
  return full;
}

/** Exports every matching run under `path`; a file that cannot be written is reported and the rest go on. */
export async function exportData(path: string, opts: DataExportOptions): Promise<ExportReport> {
  const { formats, look } = figureLook(opts);
  const smoothing = opts.smoothing ?? 0;
  if (!(smoothing >= 0 && smoothing < 1))
    throw new ExportUsageError(`smoothing must be 0 to 0.999, not ${smoothing}`);
  const { root, runs } = await findRuns(path);
  const out = await outsideReadFolder(opts.out, root);
  const chosen = runs.filter((r) => !opts.runs || opts.runs.test(r.run));
  const perRun = (opts.csv ? 2 : 0) + (opts.json ? 1 : 0);
  // The runs table is one file, known from the start.
  let total = chosen.length * perRun + (opts.runsTable ? 1 : 0);
  const report: ExportReport = {
    root,
    out,
    runs: chosen.map((r) => r.run),
    written: [],
    failed: [],
    notices: [],
  };
  let done = 0;
  const fail = (file: string, message: string): void => {
    done++;
    report.failed.push({ path: file, message });
    opts.onFile?.({ kind: 'failed', path: file, message, done, total });
  };
  /** Writes one file from what `make` gives; any failure (drawing, folder, disk) is reported with its name. */
  const writeOne = async (
    file: string,
    make: () => Iterable<string | Uint8Array> | Promise<Iterable<string | Uint8Array>>,
  ): Promise<void> => {
    if (opts.signal?.aborted) return;
    try {
      await mkdir(dirname(file), { recursive: true });
      const bytes = await writeAtomically(file, await make());
      done++;
      report.written.push({ path: file, bytes });
      opts.onFile?.({ kind: 'written', path: file, bytes, done, total });
    } catch (err) {
      fail(file, writeFailure(file, err));
    }
  };
  // Figures are encoded on libuv's thread pool while the next is drawn, up to `ahead` at once; `inFlight` is the
  // chain of writes, so files still finish (and are reported) in order.
  let inFlight: Promise<void> = Promise.resolve();
  const pending: Promise<void>[] = [];
  const ahead = encodesAhead(look);
  const writeData = async (file: string, make: () => Iterable<string>): Promise<void> => {
    await inFlight;
    await writeOne(file, make);
  };
  const figureOpts: FigureSetOptions = {
    smoothing,
    pixels: look.width * look.scale,
    ...(opts.maxTagFigures !== undefined ? { maxTagFigures: opts.maxTagFigures } : {}),
    ...(opts.logY !== undefined ? { logY: opts.logY } : {}),
    // Every run of the folder, chosen or not, so a run keeps the look the window gives it.
    looks: runStyleIndexes(runs.map((r) => r.run)),
  };
  const alerts =
    formats.length === 0 || opts.alerts === undefined
      ? undefined
      : typeof opts.alerts === 'function'
        ? await opts.alerts(root)
        : opts.alerts;
  /** Builds a planned figure once and writes it in each format; a figure that fails to build fails its files. */
  const writeFigure = async (base: string, planned: PlannedFigure): Promise<void> => {
    if (opts.signal?.aborted || formats.length === 0) return;
    let figure: Figure;
    try {
      figure = planned.build();
    } catch (err) {
      await inFlight;
      for (const f of formats) fail(`${base}.${f}`, drawFailure(`${base}.${f}`, err));
      return;
    }
    for (const format of formats) {
      let encoded: Promise<Buffer>;
      try {
        encoded = renderFigureAsync(figure, { ...look, format });
      } catch (err) {
        await inFlight;
        fail(`${base}.${format}`, drawFailure(`${base}.${format}`, err));
        continue;
      }
      encoded.catch(() => {}); // awaited (and reported) by writeOne; not an unhandled rejection meanwhile
      inFlight = inFlight.then(() => writeOne(`${base}.${format}`, async () => [await encoded]));
      pending.push(inFlight);
      while (pending.length > ahead) await pending.shift();
      // Drawing takes tens of ms: let the event loop run between figures (a window stays responsive).
      await new Promise<void>((res) => setImmediate(res));
    }
  };
  // Run folders sit beside the comparisons: a run named `comparisons` gets `comparisons-2`.
  const names = new UniqueNames([
    'comparisons',
    ...formats.map((f) => `comparison.${f}`),
    ...(opts.groups ? [GROUPS_FOLDER] : []),
    ...(opts.runsTable ? [RUNS_TABLE] : []),
  ]);
  // Seed groups: figures with a figure format, each group's tidy table (groups/GROUP/steps.csv) with --csv.
  const groupFigures =
    opts.groups && (formats.length > 0 || opts.csv)
      ? new GroupFigures({ ...figureOpts, ...opts.groups })
      : null;
  if (opts.groups && !groupFigures)
    report.notices.push(
      'no seed group outputs: --groups draws figures (add --png or --svg) and writes tables (add --csv)',
    );
  const comparing: FigureRun[] = [];
  let comparedRuns = 0;
  const tagComparisons = new TagComparisons(figureOpts);
  let comparedOut = 0;
  for (const d of chosen) {
    if (opts.signal?.aborted) break;
    const formatOf = new Map<ScalarSeries, SourceFormatName>();
    const fileOf = new Map<ScalarSeries, string>();
    const read = await readRunWhole(d, (s, format, file) => {
      formatOf.set(s, format);
      fileOf.set(s, file);
      return s;
    });
    const series: RunSeries = new Map([...read.series].filter(([tag]) => !opts.tags || opts.tags.test(tag)));
    // Two runs whose names map to one folder name (`a/b` and `a__b`) get distinct folders.
    const dir = join(out, names.take(runFolderName(d.run, root)));
    const views = opts.csv || opts.json ? shownViews(tagSources(series, formatOf, fileOf)) : null;
    const table = views ? wideTable(views) : null;
    if (opts.csv) {
      await writeData(join(dir, 'metrics_long.csv'), () => longCsv(d.run, views!));
      await writeData(join(dir, 'metrics_wide.csv'), () => wideCsv(table!));
    }
    if (opts.json) await writeData(join(dir, 'training_metrics.json'), () => jsonHistory(table!));
    if (formats.length === 0 && !groupFigures) continue;
    const run = figureRunOf(
      { run: d.run, config: read.config },
      root,
      shownSeries(
        series,
        (s) => formatOf.get(s) ?? 'json',
        (s) => fileOf.get(s) ?? '',
      ),
      { userThresholds: opts.userThresholds, ...(alerts ? { alerts } : {}) },
    );
    groupFigures?.add(run, read.config);
    if (formats.length === 0) continue;
    const plan = planRunFigures(run, figureOpts);
    report.notices.push(...plan.notices);
    total += plan.figures.length * formats.length;
    for (const planned of plan.figures) await writeFigure(join(dir, planned.name), planned);
    // Only the main reward and the compared tags' downsampled lines stay held for the comparisons, not the run.
    tagComparisons.add(run);
    comparedRuns++;
    const reward = mainReward(run.series);
    if (reward === null) continue;
    if (comparing.length < MAX_COMPARED_RUNS)
      comparing.push({ ...run, series: new Map([[reward, run.series.get(reward)!]]) });
    else comparedOut++;
  }
  if (comparedOut > 0)
    report.notices.push(
      `comparison shows the first ${MAX_COMPARED_RUNS} runs with a reward; ${comparedOut} more left out (choose with --runs REGEX)`,
    );
  const comparison = planComparison(comparing, figureOpts);
  if (comparison) {
    total += formats.length;
    await writeFigure(join(out, comparison.name), comparison);
  } else if (comparedRuns >= 2)
    report.notices.push(
      `no comparison figure: ${comparing.length === 0 ? 'no run logs' : 'only one run logs'} a reward tag (comparisons/ has the tags runs share)`,
    );
  const shared = tagComparisons.plan();
  report.notices.push(...shared.notices);
  total += shared.figures.length * formats.length;
  for (const planned of shared.figures) await writeFigure(join(out, planned.name), planned);
  if (groupFigures) {
    const groups = groupFigures.plan();
    report.notices.push(...groups.notices);
    const tables = opts.csv ? groups.tables : [];
    total += groups.figures.length * formats.length + tables.length;
    for (const planned of groups.figures) await writeFigure(join(out, planned.name), planned);
    for (const t of tables) await writeData(join(out, t.name), t.rows);
  }
  if (opts.runsTable && !opts.signal?.aborted) {
    const csv = await opts.runsTable(report.runs).catch((err: unknown) => err);
    if (typeof csv === 'string') await writeData(join(out, RUNS_TABLE), () => [csv]);
    else {
      await inFlight;
      fail(
        join(out, RUNS_TABLE),
        `cannot make ${join(out, RUNS_TABLE)}: ${csv instanceof Error ? csv.message : String(csv)}`,
      );
    }
  }
  await inFlight;
  return report;
}

/** A read run's series with each one's file and format, as shownViews takes them. */
function tagSources(
  series: RunSeries,
  formatOf: ReadonlyMap<ScalarSeries, SourceFormatName>,
  fileOf: ReadonlyMap<ScalarSeries, string>,
): Map<string, TagSource[]> {
  const out = new Map<string, TagSource[]>();
  for (const [tag, parts] of series)
    out.set(
      tag,
      parts.map((s) => ({ name: fileOf.get(s) ?? '', format: formatOf.get(s) ?? 'json', series: s })),
    );
  return out;
}

/**
 * A read run as its figures see it: thresholds as the app resolves them (the user's settings over the run's
 * config over the defaults), the caller's alerts, and the root run '.' named by its folder.
 */
export function figureRunOf(
  read: Pick<RunRead, 'run' | 'config'>,
  root: string,
  series: FigureRun['series'],
  opts: { userThresholds?: Partial<Thresholds>; alerts?: readonly AlertInfo[] },
): FigureRun {
  return {
    run: read.run,
    ...(read.run === '.' ? { label: runFolderName(read.run, root) } : {}),
    series,
    thresholds: setValues(resolveThresholds(opts.userThresholds, read.config)),
    ...(opts.alerts ? { alerts: opts.alerts } : {}),
  };
}

function writeFailure(file: string, err: unknown): string {
  if (err instanceof ExportWriteError) return err.message;
  const code = (err as NodeJS.ErrnoException).code;
  // mkdir of the file's folder: name the file, as a write failure does.
  if (code) return `cannot write ${file}: cannot create its folder (${code})`;
  return drawFailure(file, err);
}

function drawFailure(file: string, err: unknown): string {
  return `cannot draw ${file}: ${err instanceof Error ? err.message : String(err)}`;
}
