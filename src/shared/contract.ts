// The one typed contract: argument and result schemas per request channel, payload types per push event.

import { z } from 'zod';
import type { PushEvent, RequestChannel } from './channels';
import type {
  AlertChange,
  AlertInfo,
  AppFocus,
  AppInfo,
  AppNotice,
  AppNotification,
  EndpointInfo,
  ExportedFigure,
  ExportProgress,
  IncidentSnapshot,
  LoadProgress,
  RecentRunInfo,
  RunDetails,
  RunExportStarted,
  RunInfo,
  SeriesDelta,
  SeriesReset,
  SeriesWindow,
  Settings,
} from './domain';
import { FIGURE_BOUNDS } from './figure-bounds';
import { MAX_COMPOSED_TAGS } from './charts/composed';
import type { RunsTable } from './compare/runs-table';
import type { SystemSnapshot } from './system-types';
import type { JobInfo } from './job-types';
import { TEXT_PAGE_MAX, type TextPage, type TextTagInfo } from './text-items';
import { SAMPLE_CELL_CHARS, SAMPLE_PAGE_MAX, type SamplePage, type SampleSourceInfo } from './samples';
import type { HistogramTagInfo, HistogramView } from './histogram-items';
import type { RunsChangedPayload } from './run-list-delta';

const runName = z.string().min(1).max(4096);
const tagName = z.string().min(1).max(4096);
const finite = z.number().finite();
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const json: z.ZodType<Json> = z.lazy(() =>
  z.union([
    z.null(),
    z.boolean(),
    finite,
    z.string().max(65536),
    z.array(json).max(10000),
    z.record(z.string().max(256), json),
  ]),
);

export const settingsPatchSchema = z.strictObject({
  theme: z.enum(['system', 'light', 'dark']).optional(),
  smoothing: z.number().min(0).max(0.999).optional(),
  xAxis: z.enum(['step', 'relative', 'wall']).optional(),
  logY: z.boolean().optional(),
  ignoreOutliers: z.boolean().optional(),
  earlierSessions: z.boolean().optional(),
  notifications: z.boolean().optional(),
  usePolling: z.boolean().optional(),
  stalledAfterMinutes: z
    .number()
    .min(1)
    .max(24 * 60)
    .nullable()
    .optional(),
  thresholds: z.record(z.string().min(1).max(64), finite).optional(),
  exportFolder: z.string().min(1).max(4096).nullable().optional(),
});

/** A chart's view as the dashboard draws it, for export.figure. */
const chartViewSchema = z.strictObject({
  xAxis: z.enum(['step', 'relative', 'wall']),
  logY: z.boolean(),
  smoothing: z.number().min(0).max(0.999),
  ignoreOutliers: z.boolean(),
  /** Draw a restarted run's earlier sessions, faded, as the chart does (default on). */
  earlierSessions: z.boolean().optional(),
  /** The visible x window when zoomed, in the x axis' own units; absent: the whole series. */
  xRange: z
    .strictObject({ min: finite, max: finite })
    .refine((r) => r.min < r.max, 'xRange.min must be below xRange.max')
    .optional(),
});

/** Argument schemas: every request's input is untrusted and parsed here before a handler sees it. */
export const requestSchemas = {
  'app.info': z.strictObject({}),
  'app.visibility': z.strictObject({ visible: z.boolean() }),
  /** The page has drawn its first chart with its data: serve's held background work (first reads' judging) starts. */
  'app.firstScreen': z.strictObject({}),
  /** `deltas`: this client takes its runs.changed pushes as changes from this answer on (shared/run-list-delta.ts). */
  'runs.list': z.strictObject({ deltas: z.literal(true).optional() }),
  'runs.openFolder': z.strictObject({ path: z.string().min(1).max(4096) }),
  'runs.chooseFolder': z.strictObject({}),
  'runs.recent': z.strictObject({}),
  'runs.details': z.strictObject({ run: runName }),
  'runs.saveView': z.strictObject({ view: z.record(z.string().max(256), json) }),
  /** The runs table of the one run list: a row per run, every varying config key a column. */
  'runs.table': z.strictObject({}),
  'series.get': z.strictObject({
    run: runName,
    tag: tagName,
    /** Target width in device pixels: at most ~2 points per pixel come back. */
    pixels: z.number().int().min(1).max(20000),
    /** Optional x-range (inclusive, in `axis` units); absent means the whole series. */
    xMin: finite.optional(),
    xMax: finite.optional(),
    axis: z.enum(['step', 'wall']).optional(),
    /** One session's own points (1-based, `SeriesWindow.sessions`) instead of the live view. */
    session: z.number().int().min(1).max(1_000_000).optional(),
  }),
  /** This client shows (`follow`) or no longer shows a series: once a client has said, serve pushes it
   * series.appended / series.reset of the series it follows only (a client that never says gets them all). */
  'series.follow': z.strictObject({ run: runName, tag: tagName, follow: z.boolean() }),
  'alerts.list': z.strictObject({ run: runName.optional() }),
  'alerts.ack': z.strictObject({ id: z.string().min(1).max(8192) }),
  'alerts.snooze': z.strictObject({
    id: z.string().min(1).max(8192),
    minutes: z
      .number()
      .min(1)
      .max(7 * 24 * 60),
  }),
  'system.history': z.strictObject({ sinceMs: finite.optional() }),
  'settings.get': z.strictObject({}),
  'settings.set': z.strictObject({ patch: settingsPatchSchema }),
  /** Remote rlwatch endpoints: the URL `rlwatch serve`/`agent` printed, token included. */
  'endpoints.list': z.strictObject({}),
  'endpoints.add': z.strictObject({ url: z.string().min(1).max(4096) }),
  'endpoints.remove': z.strictObject({ id: z.string().min(1).max(300) }),
  /** Jobs: runs of several nodes grouped by their agents' `--job` or a shared run name, with cross-node findings. */
  'jobs.list': z.strictObject({}),
  'export.figure': z.strictObject({
    /** Overlaid runs, in drawing order (run i gets palette colour i). */
    runs: z.array(runName).min(1).max(64),
    /** The tag drawn; for a composed chart (`tags`), its name: the figure's title and file name. */
    tag: tagName,
    /** A composed chart's tags, each once: a line per tag × run, coloured by run and dashed by tag (in this order);
     * absent: the chart of `tag`. */
    tags: z
      .array(tagName)
      .min(1)
      .max(MAX_COMPOSED_TAGS)
      .refine((t) => new Set(t).size === t.length, 'each tag once')
      .optional(),
    view: chartViewSchema,
    theme: z.enum(['light', 'dark']),
    format: z.enum(['png', 'svg']),
    width: z.number().int().min(FIGURE_BOUNDS.minWidth).max(FIGURE_BOUNDS.maxWidth),
    height: z.number().int().min(FIGURE_BOUNDS.minHeight).max(FIGURE_BOUNDS.maxHeight),
    scale: z.number().min(FIGURE_BOUNDS.minScale).max(FIGURE_BOUNDS.maxScale),
    /** Fonts, line widths and caption: the screen's (default) or a paper's (paper-sized text, wrapped caption). */
    style: z.enum(['screen', 'paper']).optional(),
    /** Draw the health band (shaded healthy range, target line) and say what it means; default on. */
    healthBands: z.boolean().optional(),
  }),
  'export.run': z.strictObject({
    runs: z.array(runName).min(1).max(1000),
    /** Where the files go (created); never inside the open folder. */
    folder: z.string().min(1).max(4096),
  }),
  'dialog.pickFolder': z.strictObject({}),
  /** An alert's incident snapshot, into `folder` (an existing folder, absolute) or the remembered export folder;
   * `step` picks the id's incident at that step when there is one (else the newest). */
  'export.incident': z.strictObject({
    id: z.string().min(1).max(8192),
    folder: z.string().min(1).max(4096).optional(),
    step: finite.optional(),
  }),
  /** A run's text-sample tags (TensorBoard `text` summaries) with their counts and step spans. */
  'texts.list': z.strictObject({ run: runName }),
  /** A tag's text items: those of one step, or the newest `limit` (at most 1000). */
  'texts.get': z.strictObject({
    run: runName,
    tag: tagName,
    step: z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).optional(),
    limit: z.number().int().min(1).max(TEXT_PAGE_MAX).optional(),
  }),
  /** A run's sample sources (completions JSONL files, W&B and trackio table keys, trackio trace keys, TensorBoard text tags) with per-step counts. */
  'samples.list': z.strictObject({ run: runName }),
  /** One page (≤ 1000 rows) of a source's samples at a step (none: at every step), after an optional search
   * (substring or `/regex/`), `where` (a column's exact text: one prompt across steps) and sort. */
  'samples.get': z.strictObject({
    run: runName,
    source: tagName,
    step: finite.optional(),
    where: z.strictObject({ column: tagName, equals: z.string().max(SAMPLE_CELL_CHARS) }).optional(),
    offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    limit: z.number().int().min(1).max(SAMPLE_PAGE_MAX).optional(),
    sort: z
      .strictObject({
        column: tagName,
        by: z.enum(['value', 'length']).optional(),
        desc: z.boolean().optional(),
      })
      .optional(),
    search: z.string().max(4096).optional(),
  }),
  /** A run's histogram tags (TensorBoard histograms, W&B and trackio histogram records) with their step counts and spans. */
  'histograms.list': z.strictObject({ run: runName }),
  /** A tag's kept steps, at most 200 of them on one grid of at most 64 bins, with TensorBoard's percentiles. */
  'histograms.get': z.strictObject({ run: runName, tag: tagName }),
} satisfies Record<RequestChannel, z.ZodType>;

/** Result types per channel (results are produced by our own code, so types suffice). */
export interface RequestResults {
  'app.info': AppInfo;
  'app.visibility': null;
  'app.firstScreen': null;
  'runs.list': RunInfo[];
  'runs.openFolder': { root: string };
  'runs.chooseFolder': { root: string } | null;
  'runs.recent': RecentRunInfo[];
  'runs.details': RunDetails;
  'runs.saveView': null;
  'runs.table': RunsTable;
  'series.get': SeriesWindow;
  'series.follow': null;
  'alerts.list': AlertInfo[];
  'alerts.ack': AlertInfo;
  'alerts.snooze': AlertInfo;
  'system.history': SystemSnapshot[];
  'settings.get': Settings;
  'settings.set': Settings;
  'endpoints.list': EndpointInfo[];
  'endpoints.add': EndpointInfo;
  'endpoints.remove': null;
  'jobs.list': JobInfo[];
  'export.figure': ExportedFigure;
  /** Answered once checked and started (a long export never holds a socket client's other requests). */
  'export.run': RunExportStarted;
  /** The folder the user picked (Electron's dialog), null when cancelled. */
  'dialog.pickFolder': { path: string } | null;
  'export.incident': IncidentSnapshot;
  'texts.list': TextTagInfo[];
  'texts.get': TextPage;
  'samples.list': SampleSourceInfo[];
  'samples.get': SamplePage;
  'histograms.list': HistogramTagInfo[];
  'histograms.get': HistogramView;
}

export type RequestArgs = { [C in RequestChannel]: z.infer<(typeof requestSchemas)[C]> };

export interface PushPayloads {
  'runs.changed': RunInfo[];
  'series.appended': SeriesDelta;
  'series.reset': SeriesReset;
  'alerts.changed': AlertChange;
  'system.snapshot': SystemSnapshot;
  'load.progress': LoadProgress;
  'app.focus': AppFocus;
  'app.notice': AppNotice;
  'app.notification': AppNotification;
  'endpoints.changed': EndpointInfo[];
  'jobs.changed': JobInfo[];
  'export.progress': ExportProgress;
}

/** What a renderer receives per push event: the bus's payloads, except runs.changed, which a client that asked for
 * deltas gets as its stream's changes (shared/run-list-delta.ts). */
export type RendererPushPayloads = Omit<PushPayloads, 'runs.changed'> & {
  'runs.changed': RunsChangedPayload;
};

// Compile-time check that every push event has a payload type and every channel a result type.
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const contractIsComplete: [
  Exact<keyof PushPayloads, PushEvent>,
  Exact<keyof RequestResults, RequestChannel>,
] = [true, true];

/** One handler per request channel: leaving one out is a compile error. */
export type Handlers = {
  [C in RequestChannel]: (args: RequestArgs[C]) => Promise<RequestResults[C]> | RequestResults[C];
};
