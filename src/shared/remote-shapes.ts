// What a remote rlwatch endpoint may send, as zod schemas: its answers and pushes are untrusted input, checked here.

import { z } from 'zod';
import type {
  AlertChange,
  AlertInfo,
  AppNotice,
  RunDetails,
  RunInfo,
  SeriesDelta,
  SeriesReset,
  SeriesWindow,
} from './domain';
import type { ResultError } from './result';
import { JOB_NAME_MAX } from './job-types';
import {
  TEXT_ITEM_BYTES,
  TEXT_ITEM_CELLS,
  TEXT_PAGE_MAX,
  type TextPage,
  type TextTagInfo,
} from './text-items';
import {
  SAMPLE_CELL_CHARS,
  SAMPLE_HISTOGRAM_BINS,
  SAMPLE_ORIGINS,
  SAMPLE_PAGE_MAX,
  type SamplePage,
  type SampleSourceInfo,
} from './samples';
import {
  DISTRIBUTION_BPS,
  HISTOGRAM_VIEW_BINS,
  HISTOGRAM_VIEW_STEPS,
  type HistogramTagInfo,
  type HistogramView,
} from './histogram-items';

/** The schemas, built on their first use (see `lazily`). */
function buildShapes() {
  /** Any number, NaN and ±Infinity included (alert values and series points may be non-finite). */
  const num = z.custom<number>((v) => typeof v === 'number');
  const text = z.string().max(65536);
  const name = z.string().min(1).max(4096);
  const f64 = z.instanceof(Float64Array);
  const severity = z.enum(['warning', 'critical']);

  const sourceInfo = z.object({
    file: text,
    format: z.enum([
      'tfevents',
      'csv',
      'json',
      'jsonl',
      'trainer_state',
      'training_progress',
      'wandb',
      'mlflow',
      'completions',
      'trackio',
    ]),
    records: num,
    errors: z
      .array(
        z.object({
          offset: num,
          kind: z.enum(['truncated', 'bad-length-crc', 'bad-data-crc', 'decode', 'io', 'too-large']),
          message: text,
        }),
      )
      .max(10_000),
    dead: z.boolean(),
    rewritten: z.boolean().optional(),
  });

  const sessionInfo = z.object({
    index: num,
    startStep: num,
    endStep: num,
    startWall: num.nullable(),
    endWall: num.nullable(),
    points: num,
  });
  // An endpoint older than sessions sends none: its series read as one session.
  const sessionList = z.array(sessionInfo).max(100_000).default([]);

  const runInfoShape: z.ZodType<RunInfo> = z.object({
    run: name,
    sources: z.array(sourceInfo).max(10_000),
    tags: z.array(name).max(100_000),
    points: num,
    lastEventAt: num.nullable(),
    fileWrittenAt: num.nullable(),
    progress: z.object({ fraction: num.nullable(), etaSeconds: num.nullable() }).nullable(),
    loaded: z.boolean(),
    restarts: num,
    sessions: sessionList,
    worstAlert: severity.nullable(),
    stalled: z.boolean(),
    stop: z
      .object({ state: z.enum(['exited', 'crashed', 'stalled', 'ended']), reason: z.string().max(2000) })
      .nullable()
      .optional(),
    ended: z.enum(['finished', 'crashed']).nullable().optional(),
    thinned: z.object({ kept: num, read: num }).nullable().optional(),
    trainer: z
      .object({
        state: z.enum(['alive', 'exited']),
        processes: z
          .array(
            z.object({
              pid: z.number().int().nonnegative(),
              evidence: z.enum(['open-files', 'cwd', 'command-line']),
              onGpu: z.boolean(),
            }),
          )
          .max(1000),
        exitedAt: num.nullable(),
      })
      .nullable()
      .optional(),
    host: z.string().max(300).optional(),
    job: z.string().max(JOB_NAME_MAX).optional(),
    node: z.string().max(JOB_NAME_MAX).optional(),
  });

  const runListShape = z.array(runInfoShape).max(100_000);

  const alertInfoShape: z.ZodType<AlertInfo> = z.object({
    id: z.string().min(1).max(8192),
    rule: z.string().min(1).max(256),
    severity,
    run: name,
    tag: name.nullable(),
    tags: z.array(name).max(1000),
    step: num,
    wallTime: num.nullable(),
    value: num,
    statistic: z
      .object({
        kind: z.enum(['median', 'early-median', 'mean']),
        fromStep: num,
        toStep: num,
        value: num,
      })
      .nullable(),
    message: text,
    advice: text.nullable(),
    changed: z
      .array(z.object({ tag: name, step: num, value: num, baseline: num, ratio: num.nullable() }))
      .max(16)
      .optional(),
    raisedAt: num,
    acknowledged: z.boolean(),
    snoozedUntil: num.nullable(),
    active: z.boolean(),
    clearedAt: num.nullable(),
    clearedStep: num.nullable(),
    clearedWallTime: num.nullable(),
    clearedBecause: text.optional(),
  });

  const alertListShape = z.array(alertInfoShape).max(100_000);

  const alertChangeShape: z.ZodType<AlertChange> = z.object({
    kind: z.enum(['raised', 'escalated', 'cleared', 'updated']),
    alert: alertInfoShape,
  });

  const seriesWindowShape: z.ZodType<SeriesWindow> = z.object({
    run: name,
    tag: name,
    steps: f64,
    wallTimes: f64,
    values: f64,
    length: num,
    inRange: num,
    downsampled: z.boolean(),
    extent: z.object({ stepMin: num, stepMax: num, wallMin: num, wallMax: num }).nullable(),
    restarts: z.array(z.object({ step: num, wallTime: num, dropped: num })).max(100_000),
    sessions: sessionList,
    session: num.optional(),
    untimed: num,
  });

  const seriesDeltaShape: z.ZodType<SeriesDelta> = z.object({
    run: name,
    tag: name,
    from: num,
    steps: f64,
    wallTimes: f64,
    values: f64,
  });

  const seriesResetShape: z.ZodType<SeriesReset> = z.object({
    run: name,
    tag: name,
    reason: z.enum(['restart', 'truncated', 'bulk']),
  });

  const jsonObject = z.record(z.string(), z.unknown());

  const runDetailsShape: z.ZodType<RunDetails> = z.object({
    run: name,
    config: jsonObject.nullable(),
    progress: z
      .object({
        fraction: num.nullable(),
        etaSeconds: num.nullable(),
        fields: z.record(z.string(), z.union([num, z.string(), z.boolean(), z.null()])),
      })
      .nullable(),
    epochSummary: z.custom<RunDetails['epochSummary']>(
      (v) => v === null || (typeof v === 'object' && !Array.isArray(v)),
    ),
    systemTags: z.array(name).max(100_000),
    thresholds: z
      .record(
        z.string(),
        z.object({
          key: z.string(),
          value: num,
          origin: z.enum(['user', 'run-config', 'default']),
          configPath: z.string().optional(),
        }),
      )
      .optional(),
    scope: z.enum(['classic', 'llm']).optional(),
  });

  const appNoticeShape: z.ZodType<AppNotice> = z.object({
    level: z.enum(['info', 'warning', 'error']),
    message: text,
  });

  /** The Result envelope of an answer; the value is checked by the channel's own shape afterwards. */
  const resultShape: z.ZodType<{ ok: true; value: unknown } | { ok: false; error: ResultError }> = z.union([
    z.object({ ok: z.literal(true), value: z.unknown() }),
    z.object({
      ok: z.literal(false),
      error: z.object({
        code: z.enum(['bad-request', 'unknown-channel', 'not-found', 'unavailable', 'io', 'internal']),
        message: text,
      }),
    }),
  ]);

  /** What a job needs of an endpoint's system sample: when, and its GPUs' utilisation (the rest is its own window's). */
  const systemGpuShape = z.object({
    t: num,
    gpus: z
      .array(z.object({ utilizationGpuPct: num.nullable() }))
      .max(1024)
      .nullable(),
    gpusStale: z.boolean().optional(),
  });

  // --- texts, samples and histograms of an endpoint's run: the bounds our own answers keep (run-texts, run-samples,
  // run-histograms), so a remote answer that passes is one we could have made ourselves.

  /** texts.get answers at most TEXT_PAGE_MAX items; a TensorBoard text item at most TEXT_ITEM_CELLS cells of
   * TEXT_ITEM_BYTES in all (no more UTF-16 units) of a tensor of rank ≤ 32 (text-decoder). */
  const TEXT_RANK_MAX = 32;
  /** Tags, sources and steps a list may hold: far past what a run keeps, short of what a hostile list could. */
  const LIST_MAX = 100_000;
  const STEPS_MAX = 1_000_000;

  const textTagListShape: z.ZodType<TextTagInfo[]> = z
    .array(z.object({ tag: name, count: num, firstStep: num, lastStep: num }))
    .max(LIST_MAX);

  const textPageShape: z.ZodType<TextPage> = z.object({
    run: name,
    tag: name,
    items: z
      .array(
        z.object({
          tag: name,
          step: num,
          wallTime: num,
          cells: z.array(z.string().max(TEXT_ITEM_BYTES)).max(TEXT_ITEM_CELLS),
          shape: z.array(num).max(TEXT_RANK_MAX),
          truncated: z.boolean(),
        }),
      )
      .max(TEXT_PAGE_MAX),
    dropped: num,
  });

  const sampleSourceListShape: z.ZodType<SampleSourceInfo[]> = z
    .array(
      z.object({
        source: name,
        origin: z.enum(SAMPLE_ORIGINS),
        rows: num,
        dropped: num,
        steps: z.array(z.object({ step: num, rows: num })).max(STEPS_MAX),
      }),
    )
    .max(LIST_MAX);

  const sampleCell = z.union([z.string().max(SAMPLE_CELL_CHARS), num, z.null()]);

  const samplePageShape: z.ZodType<SamplePage> = z
    .object({
      run: name,
      source: name,
      step: num.nullable(),
      columns: z
        .array(z.object({ name: z.string().max(65536), kind: z.enum(['text', 'number']) }))
        .max(LIST_MAX),
      total: num,
      matched: num,
      offset: num,
      rows: z.array(z.array(sampleCell).max(LIST_MAX)).max(SAMPLE_PAGE_MAX),
      truncated: z.array(z.boolean()).max(SAMPLE_PAGE_MAX),
      index: z.array(num).max(SAMPLE_PAGE_MAX),
      steps: z.array(num).max(SAMPLE_PAGE_MAX),
      histograms: z
        .array(
          z.object({
            column: z.string().max(65536),
            measure: z.enum(['value', 'length']),
            min: num,
            max: num,
            counts: z.array(num).max(SAMPLE_HISTOGRAM_BINS),
          }),
        )
        .max(LIST_MAX),
    })
    // A row a cell per column, a truncated flag and an index per row: what the Samples view lays out by.
    .refine(
      (p) =>
        p.truncated.length === p.rows.length &&
        p.index.length === p.rows.length &&
        p.steps.length === p.rows.length &&
        p.rows.every((r) => r.length === p.columns.length),
    );

  const histogramTagListShape: z.ZodType<HistogramTagInfo[]> = z
    .array(z.object({ tag: name, steps: num, seen: num, firstStep: num, lastStep: num }))
    .max(LIST_MAX);

  const perStep = z.array(num);

  const histogramViewShape: z.ZodType<HistogramView> = z
    .object({
      run: name,
      tag: name,
      edges: z.array(num).max(HISTOGRAM_VIEW_BINS + 1),
      steps: z.array(num).max(HISTOGRAM_VIEW_STEPS),
      wallTimes: z.array(num).max(HISTOGRAM_VIEW_STEPS),
      counts: z.array(perStep.max(HISTOGRAM_VIEW_BINS)).max(HISTOGRAM_VIEW_STEPS),
      percentiles: z.array(perStep.max(DISTRIBUTION_BPS.length)).max(HISTOGRAM_VIEW_STEPS),
      kept: num,
      seen: num,
      dropped: num,
    })
    // Per step its wall time, its counts on the grid and its percentiles: what the distributions view draws from.
    .refine(
      (v) =>
        v.wallTimes.length === v.steps.length &&
        v.counts.length === v.steps.length &&
        v.percentiles.length === v.steps.length &&
        v.counts.every((c) => c.length === Math.max(0, v.edges.length - 1)) &&
        v.percentiles.every((p) => p.length === DISTRIBUTION_BPS.length),
    );

  return {
    runInfoShape,
    runListShape,
    alertInfoShape,
    alertListShape,
    alertChangeShape,
    seriesWindowShape,
    seriesDeltaShape,
    seriesResetShape,
    runDetailsShape,
    appNoticeShape,
    resultShape,
    systemGpuShape,
    textTagListShape,
    textPageShape,
    sampleSourceListShape,
    samplePageShape,
    histogramTagListShape,
    histogramViewShape,
  };
}

type Shapes = ReturnType<typeof buildShapes>;
let built: Shapes | undefined;

/** A schema as its users need it (`safeParse`), built with all the others on the first check: zod builds each
 * schema slowly (these took 20–45 ms together on the 2-core VM), and a process that never hears from an endpoint never needs them —
 * `rlwatch serve`'s start-up among them (#36). */
export interface LazyShape<T> {
  safeParse(value: unknown): z.ZodSafeParseResult<T>;
}

function lazily<T>(pick: (shapes: Shapes) => z.ZodType<T>): LazyShape<T> {
  return { safeParse: (value) => pick((built ??= buildShapes())).safeParse(value) };
}

export const runInfoShape = lazily((s) => s.runInfoShape);
export const runListShape = lazily((s) => s.runListShape);
export const alertInfoShape = lazily((s) => s.alertInfoShape);
export const alertListShape = lazily((s) => s.alertListShape);
export const alertChangeShape = lazily((s) => s.alertChangeShape);
export const seriesWindowShape = lazily((s) => s.seriesWindowShape);
export const seriesDeltaShape = lazily((s) => s.seriesDeltaShape);
export const seriesResetShape = lazily((s) => s.seriesResetShape);
export const runDetailsShape = lazily((s) => s.runDetailsShape);
export const appNoticeShape = lazily((s) => s.appNoticeShape);
export const resultShape = lazily((s) => s.resultShape);
export const systemGpuShape = lazily((s) => s.systemGpuShape);
export const textTagListShape = lazily((s) => s.textTagListShape);
export const textPageShape = lazily((s) => s.textPageShape);
export const sampleSourceListShape = lazily((s) => s.sampleSourceListShape);
export const samplePageShape = lazily((s) => s.samplePageShape);
export const histogramTagListShape = lazily((s) => s.histogramTagListShape);
export const histogramViewShape = lazily((s) => s.histogramViewShape);
