// An incident snapshot from an alert: report.md, window.csv (every tag around the step) and the figure, written safely.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { groupOf, type RunScope } from '../../shared/catalog';
import type { AlertInfo, IncidentSnapshot } from '../../shared/domain';
import type { SystemSnapshot } from '../../shared/system-types';
import { ruleAdvice, setValues, thresholdTable, type ResolvedThresholds, type RuleId } from '../health';
import type { ScalarSeries } from '../series/scalar-series';
import { outsideReadFolder, runFolderName } from './export-run';
import { MAX_NAME_SIZE, nameSize, safeFileName } from '../../shared/file-names';
import { DEFAULT_FIGURE, renderFigureAsync, type FigureFormat } from './figure-render';
import { incidentFigure, incidentTags } from './incident-figure';
import { incidentReport, mdText, type SystemAtIncident } from './incident-report';
import { incidentWindow, windowSeries, type ViewReader } from './incident-window';
import { ExportWriteError, writeAtomically } from './safe-write';
import { longCsvOf, type RunSeries } from './tables';
import { byCodeUnits } from '../../shared/order';

export interface IncidentRequest {
  alert: AlertInfo;
  /** The folder the run was read from: never written (the snapshot folder must be outside it). */
  root: string;
  /** The folder the snapshot's own folder is made in. */
  out: string;
  /** The run's live views. */
  reader: ViewReader;
  /** The run's tags (RunInfo.tags). */
  tags: readonly string[];
  config: Record<string, unknown> | null;
  thresholds: ResolvedThresholds;
  scope: RunScope;
  /** The machine's system sample nearest a time (ms), when the host keeps samples (the app); none headless. */
  systemSampleNear?: (ms: number) => SystemSnapshot | null;
  /** Figure formats (default PNG). */
  formats?: readonly FigureFormat[];
  /** Steps each side of the alert; default: WINDOW_FRACTION of the run's step range (incident-window.ts). */
  halfWidth?: number;
}

/** `incident-<rule>-<run>-step<step>`: one safe folder name (`safeFileName`); a long run name is cut, never the step. */
export function incidentFolderName(alert: Pick<AlertInfo, 'rule' | 'run' | 'step'>, root: string): string {
  const head = `incident-${alert.rule}-`;
  const tail = `-step${alert.step}`;
  const run = runFolderName(alert.run, root, MAX_NAME_SIZE - nameSize(head) - nameSize(tail));
  return safeFileName(`${head}${run}${tail}`, MAX_NAME_SIZE);
}

/** The index of `s`'s first point with the step nearest `step` (its points need not be in step order). */
function nearestStep(s: ScalarSeries, step: number): number {
  let best = 0;
  for (let i = 1; i < s.length; i++) if (Math.abs(s.step(i) - step) < Math.abs(s.step(best) - step)) best = i;
  return best;
}

/** The wall time (ms) of the alert tag's point nearest the alert step, else when the alert was raised. */
function alertWallTime(alert: AlertInfo, series: RunSeries): number {
  const s = alert.tag === null ? undefined : series.get(alert.tag)?.[0];
  if (!s || s.length === 0) return alert.raisedAt;
  const wall = s.wallTime(nearestStep(s, alert.step));
  return Number.isFinite(wall) ? wall * 1000 : alert.raisedAt;
}

/** The run's own system tags at the point nearest the alert step (within the window). */
function runSystemPoints(series: RunSeries, step: number): SystemAtIncident {
  const points: { tag: string; step: number; value: number; f32: boolean }[] = [];
  for (const [tag, parts] of [...series].sort(([a], [b]) => byCodeUnits(a, b))) {
    if (groupOf(tag) !== 'System') continue;
    const s = parts[0]!;
    const best = nearestStep(s, step);
    points.push({ tag, step: s.step(best), value: s.value(best), f32: !s.isDouble });
  }
  return points.length > 0 ? { source: 'run', points } : null;
}

/**
 * Writes the snapshot folder. Each file is written atomically; a file that fails is reported with its
 * reason and the rest go on. Throws ExportUsageError when `out` is inside the folder read.
 */
export async function writeIncident(req: IncidentRequest): Promise<IncidentSnapshot> {
  const out = await outsideReadFolder(req.out, req.root);
  const { alert } = req;
  const folder = join(out, incidentFolderName(alert, req.root));
  const win = incidentWindow(req.reader, alert.run, req.tags, alert.step, req.halfWidth);
  const series = windowSeries(req.reader, alert.run, req.tags, win);
  const wallTimeMs = alertWallTime(alert, series);
  const system: SystemAtIncident = ((): SystemAtIncident => {
    const sample = req.systemSampleNear?.(wallTimeMs) ?? null;
    return sample ? { source: 'live', sample } : runSystemPoints(series, alert.step);
  })();

  const formats = req.formats ?? ['png'];
  /** Work started before the files are written (the figures' drawing), so it overlaps with writing them. */
  const early: (() => void)[] = [];
  const figure = incidentFigure({
    alert,
    series,
    tags: incidentTags(alert, series),
    window: win,
    thresholds: setValues(req.thresholds),
    pixels: DEFAULT_FIGURE.width,
  });
  type Bytes = Iterable<string | Uint8Array>;
  const files: { name: string; what: string; bytes: () => Bytes | Promise<Bytes> }[] = [
    {
      name: 'window.csv',
      what: `every tag's points in the window, as read (run, tag, step, wall_time, value, session)`,
      bytes: () =>
        longCsvOf(
          alert.run,
          series,
          (tag) => req.reader.getWindow(alert.run, tag, { pixels: 1 })?.restarts ?? [],
        ),
    },
  ];
  if (figure) {
    for (const format of formats) {
      // Drawn when the first file is written, then encoded on libuv's thread pool while window.csv is formatted.
      let drawn: Promise<Buffer> | null = null;
      const draw = (): Promise<Buffer> =>
        (drawn ??= renderFigureAsync(figure, { ...DEFAULT_FIGURE, format }));
      early.push(() => void draw().catch(() => {}));
      files.push({
        name: `charts.${format}`,
        what: `${figure.panels.map((p) => mdText(p.title)).join(', ')} around the step, the alert marked`,
        bytes: async () => [await draw()],
      });
    }
  }
  const reportText = incidentReport({
    alert,
    wallTimeMs,
    thresholds: thresholdTable(req.thresholds),
    advice: ruleAdvice(alert.rule as RuleId, req.scope),
    config: req.config,
    system,
    window: win,
    files: files.map(({ name, what }) => ({ name, what })),
  });
  files.unshift({ name: 'report.md', what: 'this report', bytes: () => [reportText] });

  const result: IncidentSnapshot = {
    id: alert.id,
    folder,
    report: join(folder, 'report.md'),
    window: { min: win.min, max: win.max },
    written: [],
    failed: [],
  };
  try {
    await mkdir(folder, { recursive: true });
  } catch (err) {
    const message = `cannot create ${folder}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`;
    for (const f of files) result.failed.push({ path: join(folder, f.name), message });
    return result;
  }
  for (const start of early) {
    try {
      start();
    } catch {
      // A figure that cannot be drawn fails its own file below, named, like any other.
    }
  }
  for (const f of files) {
    const path = join(folder, f.name);
    try {
      result.written.push({ path, bytes: await writeAtomically(path, await f.bytes()) });
    } catch (err) {
      const message = err instanceof ExportWriteError ? err.message : `cannot write ${path}: ${String(err)}`;
      result.failed.push({ path, message });
    }
    // A turn of the event loop between files: the app keeps answering while a snapshot is drawn.
    await new Promise((res) => setImmediate(res));
  }
  return result;
}
