// `inspect`: reads every run under a path once and summarises it exactly as the command-line contract says.

import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import type { SessionInfo } from '../shared/domain';
import type { SourceFormatName } from '../shared/formats';
import { bySourceName, discoverRuns, isDatabase, rootRunName, type DiscoveredRun } from './discovery';
import { effectiveConfig, readRunConfig, type RunConfig } from './readers/run-config';
import { classifyFile, databaseProblem } from './sources/sniff';
import type { ProgressInfo, ReadError, SourceReadResult } from './readers/types';
import { summarize, type ScalarSeries, type ScalarSummary } from './series/scalar-series';
import { readSource } from './sources/registry';
import { runFacts, type RunFacts } from './series/run-facts';
import { stepRuns, type StepRun } from './series/sessions';
import { wallSpan } from './series/writers';

export interface InspectSource {
  file: string;
  format: SourceFormatName;
  records: number;
  errors: ReadError[];
  /** Text items the source carries (TensorBoard `text` summaries: HF args, samples…); 0 for other formats. */
  texts: number;
  /** Histogram steps the source keeps (TensorBoard histograms, W&B histogram records, trackio histograms); 0 for other formats. */
  histograms: number;
  /** Samples the source carries (completions JSONL lines, W&B table rows, trackio table rows and traces), per sample source; [] for other formats. */
  samples: InspectSamples[];
}

/** One sample source of a file: its name (the file, a W&B or trackio table key, a trackio trace key), samples kept and dropped, steps. */
export interface InspectSamples {
  source: string;
  rows: number;
  dropped: number;
  steps: number;
}

export interface InspectRun {
  run: string;
  sources: InspectSource[];
  scalars: Record<string, ScalarSummary>;
  /** The run's sessions (each restart starts one), as the dashboard counts them. */
  sessions: SessionInfo[];
  /** Every point of its shown series (per tag the best format's files), every session: what the runs table counts
   * and `export --csv` writes (a tag's `count` is every file's, any format). */
  points: number;
  progress: ({ fraction: number | null; etaSeconds: number | null } & Record<string, unknown>) | null;
  /** The run's effective config: config.json over its sources' own (W&B config); null when none. */
  config: RunConfig | null;
  /** ms since epoch: the newest write time of its own files (not a database's); null when none could be read. */
  writtenAt: number | null;
}

export interface InspectReport {
  root: string;
  runs: InspectRun[];
  /** Folders that could not be walked, and runs' config files that could not be read (not part of the JSON
   * contract's runs). */
  walkErrors: { path: string; message: string }[];
}

export type InspectProgress = (done: number, total: number, file: string) => void;

/** Summaries of one tag across files, in file-name order: counts add, `last` is the last file's. */
export function combineSummaries(parts: ScalarSummary[]): ScalarSummary {
  const out: ScalarSummary = {
    count: 0,
    firstStep: null,
    lastStep: null,
    sum: 0,
    min: null,
    max: null,
    last: null,
    nonFinite: 0,
  };
  for (const p of parts) {
    if (p.count === 0) continue;
    out.count += p.count;
    out.firstStep ??= p.firstStep;
    out.lastStep = p.lastStep;
    out.sum += p.sum;
    if (p.min !== null) out.min = out.min === null ? p.min : Math.min(out.min, p.min);
    if (p.max !== null) out.max = out.max === null ? p.max : Math.max(out.max, p.max);
    out.last = p.last;
    out.nonFinite += p.nonFinite;
  }
  return out;
}

function progressOf(p: ProgressInfo): NonNullable<InspectRun['progress']> {
  return { ...p.fields, fraction: p.fraction, etaSeconds: p.etaSeconds };
}

/** One run read once, whole: its sources in file-name order, each tag's series from each file in that order. */
export interface RunRead<T = ScalarSeries> {
  run: string;
  sources: InspectSource[];
  /** Per tag, what was kept of each file's series (the series, or a summary), in file-name order. */
  series: Map<string, T[]>;
  progress: InspectRun['progress'];
  config: RunConfig | null;
}

/**
 * Reads every source of a discovered run to its end, the way inspect and export both need it. `keep`
 * decides what stays of each file's series once that file is read (told the file's format): export keeps
 * the series, inspect only its summary (so a run's points are never all held at once).
 */
export async function readRunWhole<T = ScalarSeries>(
  d: DiscoveredRun,
  keep: (series: ScalarSeries, format: SourceFormatName, file: string) => T = (x) => x as unknown as T,
  onFile: (file: string) => void = () => {},
  read: SourceRead = readOne,
  onConfigError: (message: string) => void = () => {},
): Promise<RunRead<T>> {
  const series = new Map<string, T[]>();
  const sources: InspectSource[] = [];
  let progress: InspectRun['progress'] = null;
  const sourceConfigs: (RunConfig | null | undefined)[] = [];
  for (const s of readOrder(d)) {
    onFile(s.path);
    const r = await read(s.path, s.format, s.member);
    sources.push({
      file: s.name,
      format: s.format,
      records: r.records,
      errors: r.errors,
      texts: r.texts?.count ?? 0,
      histograms: r.histogramSteps?.count ?? 0,
      samples: (r.samples?.sources() ?? []).map((x) => ({
        source: x.source,
        rows: x.rows,
        dropped: x.dropped,
        steps: x.steps.length,
      })),
    });
    for (const [tag, one] of r.series.entries()) {
      let list = series.get(tag);
      if (!list) series.set(tag, (list = []));
      list.push(keep(one, s.format, s.name));
    }
    if (r.progress) progress = progressOf(r.progress);
    sourceConfigs.push(r.config);
  }
  // A database's run has no folder of its own: a config.json beside the database is not its.
  const own = d.sources.every((s) => s.member === undefined)
    ? await readRunConfig(d.dir, onConfigError, d.configNames)
    : null;
  const config = effectiveConfig(own, sourceConfigs);
  return { run: d.run, sources, series, progress, config };
}

/** Reads one source whole (`member`: which run of a database holding many). */
type SourceRead = (path: string, format: SourceFormatName, member?: string) => Promise<SourceReadResult>;

const readOne: SourceRead = (path, format, member) =>
  readSource(path, format, member === undefined ? {} : { member });

/** A run's sources in the order they are read: by file name (TensorBoard's order; a dump's files by step). */
function readOrder(d: DiscoveredRun): DiscoveredRun['sources'] {
  return [...d.sources].sort((a, b) => bySourceName(a.name, b.name));
}

/**
 * Reads sources ahead of their turn, at most `ahead` beyond the one being taken, large event files on the read
 * pool's workers: several files are read at once on every core, and at most `ahead` + 1 results wait in memory.
 * Sources must be taken in `list` order.
 */
function readAhead(
  list: readonly { path: string; format: SourceFormatName; member?: string }[],
  ahead: number,
): SourceRead {
  const started = new Map<string, Promise<SourceReadResult>>();
  let next = 0;
  let taken = 0;
  const key = (path: string, member?: string): string => (member === undefined ? path : `${path}\0${member}`);
  return (path, format, member) => {
    for (; next < list.length && next <= taken + ahead; next++) {
      const s = list[next]!;
      const p = readSource(s.path, s.format, {
        workers: true,
        ...(s.member === undefined ? {} : { member: s.member }),
      });
      // Awaited when its turn comes; this only keeps a failure before then from being "unhandled".
      p.catch(() => undefined);
      started.set(key(s.path, s.member), p);
    }
    taken++;
    const p = started.get(key(path, member));
    started.delete(key(path, member));
    return p ?? readOne(path, format, member);
  };
}

/** What inspect keeps of one file's series of a tag: its summary, and what its sessions need. */
interface KeptSeries {
  summary: ScalarSummary;
  format: SourceFormatName;
  file: string;
  runs: StepRun[];
  span: { start: number; end: number };
}

/** The run's points and sessions as every view of the runs table counts them (series/run-facts.ts). */
function factsOf(series: Map<string, KeptSeries[]>): RunFacts {
  return runFacts(
    [...series].map(([tag, list]) => [
      tag,
      list.map((k) => ({ name: k.file, format: k.format, ...k.span, points: k.summary.count, runs: k.runs })),
    ]),
  );
}

async function inspectRun(
  d: DiscoveredRun,
  onFile: (file: string) => void,
  readOne: SourceRead,
  onConfigError: (message: string) => void,
): Promise<InspectRun> {
  const read = await readRunWhole(
    d,
    (s, format, file): KeptSeries => ({
      summary: summarize(s),
      format,
      file,
      runs: stepRuns(s),
      span: wallSpan(s),
    }),
    onFile,
    readOne,
    onConfigError,
  );
  const scalars: Record<string, ScalarSummary> = {};
  for (const tag of [...read.series.keys()].sort())
    scalars[tag] = combineSummaries(read.series.get(tag)!.map((k) => k.summary));
  const facts = factsOf(read.series);
  return {
    run: read.run,
    sources: read.sources,
    scalars,
    sessions: facts.sessions,
    points: facts.points,
    progress: read.progress,
    config: read.config,
    writtenAt: await writtenAt(d),
  };
}

/** ms: the newest write time of a run's own files (a database's, written for all its runs, says nothing of one). */
async function writtenAt(d: DiscoveredRun): Promise<number | null> {
  let newest: number | null = null;
  for (const s of d.sources) {
    if (s.member !== undefined) continue;
    const m = await stat(s.path).then(
      (st) => st.mtimeMs,
      () => null,
    );
    if (m !== null && (newest === null || m > newest)) newest = m;
  }
  return newest;
}

/** The runs under a folder (or the one run of a single recognised file), sorted by name. */
export async function findRuns(
  path: string,
): Promise<{ root: string; runs: DiscoveredRun[]; walkErrors: InspectReport['walkErrors'] }> {
  const full = resolve(path);
  const st = await stat(full);
  if (st.isDirectory()) {
    // discoverRuns answers its runs sorted by name.
    const found = await discoverRuns(full);
    return {
      root: full,
      runs: found.runs,
      walkErrors: found.errors.map((e) => ({ path: e.path, message: e.message })),
    };
  }
  const root = dirname(full);
  const format = await classifyFile(full, basename(full));
  if (!format) {
    const problem = databaseProblem(full);
    throw new Error(`${full} is not a recognised metrics file${problem ? `: ${problem.message}` : ''}`);
  }
  // A tracker's database holds runs of its own (discovery names them).
  if (isDatabase(basename(full), format)) {
    const found = await discoverRuns(full);
    return {
      root,
      runs: found.runs,
      walkErrors: found.errors.map((e) => ({ path: e.path, message: e.message })),
    };
  }
  return {
    root,
    runs: [
      { run: rootRunName(root, []), dir: root, sources: [{ path: full, name: basename(full), format }] },
    ],
    walkErrors: [],
  };
}

/** Inspects a folder (every run below it) or a single recognised file (one run, named by its folder). */
export async function inspectPath(path: string, onProgress?: InspectProgress): Promise<InspectReport> {
  const { root, runs, walkErrors } = await findRuns(path);
  const total = runs.reduce((n, r) => n + r.sources.length, 0);
  let done = 0;
  // Several event files: read ahead on the read pool (one worker per core); one file is read in-thread.
  const order = runs.flatMap(readOrder);
  const read =
    order.filter((s) => s.format === 'tfevents').length >= 2
      ? readAhead(order, availableParallelism())
      : readOne;
  const out: InspectRun[] = [];
  for (const d of runs) {
    const onConfigError = (message: string): void => void walkErrors.push({ path: d.dir, message });
    out.push(await inspectRun(d, (file) => onProgress?.(done++, total, file), read, onConfigError));
  }
  return { root, runs: out, walkErrors };
}
