// Which figures a run makes (seed 003's set, one per tag or device family) and how each is built from the series; comparisons across runs: figure-compare.ts.

import { classifyTag, groupOf, normaliseTag, type MetricGroup, type Role } from '../../shared/catalog';
import { drawnXAxis, xAxisFor } from '../../shared/charts/axis';
import { resolveBand, type BandInfo } from '../../shared/charts/band';
import type { Figure, FigurePanel } from '../../shared/charts/figure';
import { alertsFor, buildMarkers } from '../../shared/charts/markers';
import type { AlertInfo } from '../../shared/domain';
import type { SourceFormatName } from '../../shared/formats';
import { formatNumber } from '../../shared/format';
import { ScalarSeries } from '../series/scalar-series';
import { FIGURE_NAME_SIZE, safeFileName, UniqueNames } from '../../shared/file-names';
import { figureLines, withEarlier, type FigureLines } from './figure-series';
import { shownSeriesWriters, writerTag } from '../series/writers';
import type { RunSeries } from './tables';

/** One run as figures see it: its shown series, its resolved threshold values and (optionally) its alerts. */
export interface FigureRun {
  /** The run's name (alerts are matched by it). */
  run: string;
  /** How figures name the run (legend, subtitle); default `run` (the root run '.' shows its folder's name). */
  label?: string;
  series: RunSeries;
  /** Threshold values as the app resolves them for this run (user settings > run config > defaults). */
  thresholds: Record<string, number>;
  /** Alerts to mark (an incident export passes them); only those of this run and tag are drawn. */
  alerts?: readonly AlertInfo[];
}

export interface FigureSetOptions {
  /** EMA weight, 0 = off. */
  smoothing: number;
  /** Points kept per line: about four per pixel of this width (the figure's width × scale). */
  pixels: number;
  /** Per-tag figures of one run at most; the rest are left out with a notice (default 100). */
  maxTagFigures?: number;
  /** Log y-axes: true on every panel, a RegExp on the panels of the tags it matches; default none. */
  logY?: boolean | RegExp;
  /** Each run's stable look by run name (its index among the folder's runs, as the window draws it); figures of
   * several runs colour each by it (default: by position). */
  looks?: ReadonlyMap<string, number>;
}

/** Whether `tag`'s panels draw a log y-axis. */
export function logYFor(o: Pick<FigureSetOptions, 'logY'>, tag: string): boolean {
  return o.logY === true || (o.logY instanceof RegExp && o.logY.test(tag));
}

export interface PlannedFigure {
  /** Path below the run's folder (or the export folder), without extension: `training_progress`, `figures/loss`. */
  name: string;
  /** Builds the figure: lines are computed then, so one figure's points are held at a time. */
  build(): Figure;
}

export interface FigurePlan {
  figures: PlannedFigure[];
  /** Figures left out and why ("no loss or reward tag"), for the user. */
  notices: string[];
}

export const DEFAULT_MAX_TAG_FIGURES = 100;
/** Series on the evaluation chart and panels of the system figure at most (past that a chart is unreadable). */
const MAX_EVAL_SERIES = 8;
const MAX_SYSTEM_PANELS = 6;

/**
 * Evaluation tags: a first path part or name prefix `eval`, `evaluation`, `val`, `valid`, `validation` or
 * `test` (SB3 `eval/mean_reward`, HF `eval_loss`, Keras `val_loss`), or one of the text-quality scores seed 003
 * evaluates (BERTScore, CodeBLEU, BLEU, ROUGE, RUBY, METEOR, chrF, exact match, pass@k). The evaluator's timing
 * (HF `eval_runtime`, `eval_samples_per_second`, `eval_steps_per_second`) is performance, not a metric.
 */
const EVAL_PREFIX = /^(eval|evaluation|val|valid|validation|test)(\/|_|$)/;
const EVAL_SCORE =
  /(^|\/)(bert_?score|code_?bleu|bleu(_?\d)?|rouge(_?(l|lsum|\d))?|ruby|meteor|chrf|exact_match|pass@\d+|pass_at_\d+)$/;
const EVAL_TIMING = /(runtime|samples_per_second|steps_per_second)$/;

export function isEvalTag(tag: string): boolean {
  const n = normaliseTag(tag);
  return !EVAL_TIMING.test(n) && (EVAL_PREFIX.test(n) || EVAL_SCORE.test(n));
}

/**
 * The parts of each tag that the dashboard shows: those of the best format carrying it (the demo writes the
 * same metrics to an event file and a CSV: one line, not two copies read as a restart), each writer apart
 * (`tag (label)` for files written at the same time, series/writers.ts).
 */
export function shownSeries(
  series: RunSeries,
  formatOf: (s: ScalarSeries) => SourceFormatName,
  fileOf: (s: ScalarSeries) => string,
): RunSeries {
  const out = new Map<string, readonly ScalarSeries[]>();
  for (const [tag, parts] of series)
    for (const w of shownSeriesWriters(
      parts.map((s) => ({ name: fileOf(s), format: formatOf(s), series: s })),
    ))
      out.set(
        writerTag(tag, w.label),
        w.sources.map((x) => x.ref),
      );
  return out;
}

export const points = (parts: readonly ScalarSeries[]): number => parts.reduce((n, s) => n + s.length, 0);

/**
 * The run's main tag of the first role that has one (evaluation tags aside): the one with the most points,
 * then the shortest name, then the first by name (the demo's `reward` over `reward_mean` and `Train/AvgReward`).
 */
export function mainTag(series: RunSeries, roles: readonly Role[]): string | null {
  for (const role of roles) {
    let best: string | null = null;
    for (const [tag, parts] of series) {
      if (classifyTag(tag)?.role !== role || isEvalTag(tag) || points(parts) === 0) continue;
      if (best === null) best = tag;
      else {
        const d = points(parts) - points(series.get(best)!);
        if (d > 0 || (d === 0 && (tag.length < best.length || (tag.length === best.length && tag < best))))
          best = tag;
      }
    }
    if (best !== null) return best;
  }
  return null;
}

/** The main loss (a `loss` role, else the policy loss), reward, KL and entropy roles, in order of preference. */
const LOSS_ROLES: readonly Role[] = ['loss', 'policy_loss'];
const REWARD_ROLES: readonly Role[] = ['reward'];
const KL_ROLES: readonly Role[] = ['kl', 'kl_penalty'];
const ENTROPY_ROLES: readonly Role[] = ['entropy'];

/** The run's main reward tag (what training_progress and the comparison draw), or null. */
export const mainReward = (series: RunSeries): string | null => mainTag(series, REWARD_ROLES);

/** What the green band or target line means, with its thresholds: "green band: healthy 0.1 – 0.3 (clip_low 0.1, clip_high 0.3)". */
export function bandNote(band: BandInfo | null): string | null {
  if (!band || (band.min === null && band.max === null)) return null;
  const named = band.thresholds.length
    ? ` (${band.thresholds.map((t) => `${t.key} ${formatNumber(t.value)}`).join(', ')})`
    : '';
  if (band.target !== null) {
    const side = band.max !== null ? 'below' : 'above';
    return `green band and dashed line: healthy ${side} ${formatNumber(band.target)}${named}`;
  }
  return `green band: healthy ${formatNumber(band.min!)} – ${formatNumber(band.max!)}${named}`;
}

/** One panel of one run's tag: its lines, band, restart marks and the run's alerts on it. */
function tagPanel(run: FigureRun, tag: string, o: FigureSetOptions, pixels: number): FigurePanel {
  // As the dashboard draws it: system metrics against time since the run's start, the rest against step;
  // by step (and saying so) when the tag's source logs no wall times.
  const parts = run.series.get(tag) ?? [];
  const asked = xAxisFor(groupOf(tag), 'step');
  const xAxis = drawnXAxis(
    asked,
    parts.some((s) => s.untimed > 0),
  );
  const logY = logYFor(o, tag);
  const lines = figureLines(labelOf(run), parts, {
    xAxis,
    smoothing: o.smoothing,
    pixels,
    logY,
  });
  const band = resolveBand(tag, run.thresholds);
  return {
    title: tag,
    yTitle: band?.label ?? '',
    spec: {
      view: { xAxis, logY, smoothing: o.smoothing },
      ...(xAxis !== asked ? { askedXAxis: asked } : {}),
      series: withEarlier([lines]),
      band: band && (band.min !== null || band.max !== null) ? band : null,
      // Markers are placed by step: none on a time axis.
      markers: xAxis === 'step' ? markersOf(run, tag, lines) : [],
    },
  };
}

function markersOf(run: FigureRun, tag: string, lines: FigureLines): ReturnType<typeof buildMarkers> {
  const columns = {
    run: run.run,
    steps: [],
    walls: [],
    origin: 0,
    restarts: lines.restarts,
  };
  return buildMarkers([columns], alertsFor(run.alerts ?? [], tag, [run.run]), 'step', null);
}

export const labelOf = (run: FigureRun): string => run.label ?? run.run;

/** "run · green line: …": the subtitle naming the run and what each panel's band means. */
function subtitle(run: string, tags: readonly string[], thresholds: Record<string, number>): string {
  const notes = tags
    .map((t) => {
      const note = bandNote(resolveBand(t, thresholds));
      return note && tags.length > 1 ? `${t}: ${note}` : note;
    })
    .filter((n): n is string => n !== null);
  return [`run ${run}`, ...notes].join(' · ');
}

/** A figure of one panel per tag (or one panel per tag up to a limit), titled and subtitled. */
function panelsFigure(
  run: FigureRun,
  title: string,
  tags: readonly string[],
  o: FigureSetOptions,
  columns?: number,
): Figure {
  const perRow = columns ?? (tags.length <= 2 ? tags.length : 2);
  const pixels = o.pixels / Math.max(1, perRow);
  return {
    title,
    subtitle: subtitle(labelOf(run), tags, run.thresholds),
    panels: tags.map((t) => tagPanel(run, t, o, pixels)),
    ...(columns ? { columns } : {}),
  };
}

/** The evaluation chart: every evaluation tag as its own series on one panel, in palette order. */
function evaluationFigure(run: FigureRun, tags: readonly string[], o: FigureSetOptions): Figure {
  // One axis for every evaluation tag: log when every one of them asks for it.
  const logY = tags.every((t) => logYFor(o, t));
  const series = tags.map((t) =>
    figureLines(t, run.series.get(t) ?? [], {
      xAxis: 'step',
      smoothing: o.smoothing,
      pixels: o.pixels,
      logY,
    }),
  );
  return {
    title: 'Evaluation metrics',
    subtitle: `run ${labelOf(run)} · ${tags.length} evaluation metric${tags.length === 1 ? '' : 's'}`,
    panels: [
      {
        title: 'evaluation',
        yTitle: 'value',
        spec: {
          view: { xAxis: 'step', logY, smoothing: o.smoothing },
          series: withEarlier(series),
          band: null,
        },
      },
    ],
  };
}

/** What the system figure shows first: GPU utilisation, memory and temperature, CPU and memory (by role). */
const SYSTEM_ROLES: readonly Role[] = [
  'gpu_util',
  'gpu_memory_pct',
  'gpu_temperature',
  'cpu_pct',
  'memory_pct',
];

/** The run's system tags (catalog group System), those of the main roles first, then by name. */
export function systemTags(tags: readonly string[]): string[] {
  const rank = (t: string): number => {
    const r = SYSTEM_ROLES.indexOf(classifyTag(t)?.role as Role);
    return r < 0 ? SYSTEM_ROLES.length : r;
  };
  return tags
    .filter((t) => groupOf(t) === 'System')
    .map((t, i) => ({ t, i, r: rank(t) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.t);
}

/** Seed 003's figures for one run, then one figure per tag (at most `maxTagFigures`). */
export function planRunFigures(run: FigureRun, o: FigureSetOptions): FigurePlan {
  const figures: PlannedFigure[] = [];
  const notices: string[] = [];
  const tags = [...run.series.keys()].filter((t) => points(run.series.get(t)!) > 0).sort();

  const loss = mainTag(run.series, LOSS_ROLES);
  const reward = mainReward(run.series);
  const progress = [loss, reward].filter((t): t is string => t !== null);
  if (progress.length > 0) {
    // The title names what is drawn: a run without a reward tag gets no "reward" in it.
    const what = loss && reward ? 'loss and reward' : loss ? 'loss' : 'reward';
    figures.push({
      name: 'training_progress',
      build: () => panelsFigure(run, `Training progress: ${what}`, progress, o),
    });
  } else notices.push(`${labelOf(run)}: no training_progress figure: the run logs no loss or reward tag`);

  const policy = [mainTag(run.series, KL_ROLES), mainTag(run.series, ENTROPY_ROLES)].filter(
    (t): t is string => t !== null,
  );
  if (policy.length > 0) {
    figures.push({
      name: 'policy_metrics',
      build: () => panelsFigure(run, 'Policy: KL divergence and entropy', policy, o),
    });
  } else notices.push(`${labelOf(run)}: no policy_metrics figure: the run logs no KL or entropy tag`);

  const evals = tags.filter(isEvalTag);
  if (evals.length > 0) {
    if (evals.length > MAX_EVAL_SERIES)
      notices.push(
        `${labelOf(run)}: evaluation_metrics shows the first ${MAX_EVAL_SERIES} of ${evals.length} evaluation tags (each has its own figure)`,
      );
    const shown = evals.slice(0, MAX_EVAL_SERIES);
    figures.push({ name: 'evaluation_metrics', build: () => evaluationFigure(run, shown, o) });
  }

  const system = systemTags(tags);
  if (system.length > 0) {
    if (system.length > MAX_SYSTEM_PANELS)
      notices.push(
        `${labelOf(run)}: system shows the first ${MAX_SYSTEM_PANELS} of ${system.length} system tags (each has its own figure)`,
      );
    const shown = system.slice(0, MAX_SYSTEM_PANELS);
    figures.push({
      name: 'system',
      build: () =>
        panelsFigure(run, 'System', shown, o, shown.length <= 2 ? shown.length : shown.length <= 4 ? 2 : 3),
    });
  }

  const cap = o.maxTagFigures ?? DEFAULT_MAX_TAG_FIGURES;
  const items = figureItems(tags);
  if (items.length > cap)
    notices.push(
      `${labelOf(run)}: ${tags.length} tags: figures of the first ${cap} by catalog group (reward, policy, loss first; per-core system metrics together); choose others with --tags REGEX`,
    );
  const names = new UniqueNames();
  for (const item of items.slice(0, cap)) {
    if (item.members.length > 1) {
      // `system/cpu.*.cpu_percent` → `figures/system__cpu.all.cpu_percent`.
      figures.push({
        name: `figures/${names.take(safeFileName(item.name.replace('*', 'all'), FIGURE_NAME_SIZE))}`,
        build: () => familyFigure(run, item, o),
      });
      continue;
    }
    const tag = item.name;
    const description = classifyTag(tag)?.description;
    figures.push({
      name: `figures/${names.take(safeFileName(tag, FIGURE_NAME_SIZE))}`,
      build: () => panelsFigure(run, description ? `${tag} — ${description}` : tag, [tag], o),
    });
  }
  return { figures, notices };
}

/** The order groups' figures are made in when a run has more tags than figures: what a reader looks at first. */
const FIGURE_GROUP_ORDER: readonly MetricGroup[] = [
  'Reward',
  'Policy',
  'Loss',
  'Performance',
  'Other',
  'System',
];

/** One per-tag figure: a tag, or a family of per-core (per-device) system tags drawn together. */
export interface FigureItem {
  /** The tag, or the family's name with `*` for the index (`system/cpu.*.cpu_percent`). */
  name: string;
  members: string[];
}

/** A system tag's index part (`.0.` in `system/cpu.0.cpu_percent`, `/3/` in `gpu/3/util`). */
const DEVICE_INDEX = /(^|[./_:])\d+(?=[./_:]|$)/;

/**
 * The per-tag figures in the order they are made: by catalog group (reward, policy, loss first, system last),
 * catalog-known tags before others, then by name; system tags that differ only by a device index (one per CPU
 * core or GPU) are one family, one figure.
 */
export function figureItems(tags: readonly string[]): FigureItem[] {
  const families = new Map<string, string[]>();
  const singles: string[] = [];
  for (const t of tags) {
    if (groupOf(t) === 'System' && DEVICE_INDEX.test(t)) {
      const key = t.replace(DEVICE_INDEX, '$1*');
      const list = families.get(key);
      if (list) list.push(t);
      else families.set(key, [t]);
    } else singles.push(t);
  }
  const items: FigureItem[] = singles.map((t) => ({ name: t, members: [t] }));
  for (const [key, members] of families)
    items.push(members.length > 1 ? { name: key, members } : { name: members[0]!, members });
  const rank = (i: FigureItem): number => FIGURE_GROUP_ORDER.indexOf(groupOf(i.members[0]!));
  const known = (i: FigureItem): number => (classifyTag(i.members[0]!) ? 0 : 1);
  return items.sort(
    (a, b) => rank(a) - rank(b) || known(a) - known(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

/**
 * A family of per-device tags as one figure: at each step the mean, lowest and highest value over its members
 * (finite values only), so 64 CPU cores read as one band, not 64 lines.
 */
function familyFigure(run: FigureRun, item: FigureItem, o: FigureSetOptions): Figure {
  const byStep = new Map<number, { wall: number; sum: number; n: number; min: number; max: number }>();
  for (const tag of item.members)
    for (const s of run.series.get(tag) ?? [])
      for (let i = 0; i < s.length; i++) {
        const v = s.value(i);
        if (!Number.isFinite(v)) continue;
        const at = byStep.get(s.step(i));
        if (at) {
          at.sum += v;
          at.n++;
          at.min = Math.min(at.min, v);
          at.max = Math.max(at.max, v);
        } else byStep.set(s.step(i), { wall: s.wallTime(i), sum: v, n: 1, min: v, max: v });
      }
  const steps = [...byStep.keys()].sort((a, b) => a - b);
  type Agg = { sum: number; n: number; min: number; max: number };
  const line = (f: (a: Agg) => number): ScalarSeries => {
    const out = new ScalarSeries(steps.length, 'f64');
    for (const st of steps) {
      const a = byStep.get(st)!;
      out.append(st, a.wall, f(a));
    }
    return out;
  };
  const xAxis = xAxisFor('System', 'step');
  const logY = item.members.every((t) => logYFor(o, t));
  const aggregates: [string, (a: Agg) => number][] = [
    [`mean of ${item.members.length}`, (a) => a.sum / a.n],
    ['lowest', (a) => a.min],
    ['highest', (a) => a.max],
  ];
  const lines = aggregates.map(([label, f]) =>
    figureLines(label, [line(f)], { xAxis, smoothing: o.smoothing, pixels: o.pixels, logY }),
  );
  return {
    title: `${item.name} — ${item.members.length} devices`,
    subtitle: `run ${labelOf(run)} · mean, lowest and highest of ${item.members.join(', ')}`,
    panels: [
      {
        title: item.name,
        yTitle: resolveBand(item.members[0]!, run.thresholds)?.label ?? '',
        spec: { view: { xAxis, logY, smoothing: o.smoothing }, series: lines, band: null },
      },
    ],
  };
}
