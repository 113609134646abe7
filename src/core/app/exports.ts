// The app's exports: one chart's figure, runs' data into a folder, an alert's incident snapshot. The export modules
// (the canvas, chart.js on Node) are loaded on the first export, not when the app starts.

import { runScope } from '../../shared/catalog';
import type { RequestArgs } from '../../shared/contract';
import type {
  ExportedFigure,
  ExportProgress,
  IncidentSnapshot,
  RunExportStarted,
  Settings,
} from '../../shared/domain';
import type { SystemSnapshot } from '../../shared/system-types';
import { ApiError } from '../../shared/result';
import type { AlertService } from '../alerts/alert-service';
import type { Workspace } from '../workspace/workspace';
import type { ChartSource } from './chart-figure';
import { setValues } from '../health';
import { resolveExportFolder } from './export-folder';
import type { HostCapabilities } from './app-options';

/** An incident's system state is the live sample nearest the alert's time, if one is this close. */
const INCIDENT_SAMPLE_TOLERANCE_MS = 5 * 60_000;

/** What the exports read from the app, and how they tell it what happened. */
export interface ExportContext {
  /** The open folder (null: none). */
  root(): string | null;
  workspace(): Workspace;
  alerts: Pick<AlertService, 'list' | 'thresholdsOf' | 'scopeOf'>;
  settings(): Settings;
  /** The folder an export wrote into: offered again next time. */
  remember(folder: string): void;
  progress(p: ExportProgress): void;
  pickExportFolder: HostCapabilities['pickExportFolder'];
  /** The live system sample nearest `ms`, when one is within `toleranceMs`. */
  systemNear(ms: number, toleranceMs: number): SystemSnapshot | null;
}

export class AppExports {
  constructor(private readonly app: ExportContext) {}

  /** One chart as a standalone PNG or SVG, drawn from the series the app holds (export.figure). */
  async figure(args: RequestArgs['export.figure']): Promise<ExportedFigure> {
    const { chartFigure, exportChartFigure } = await import('./chart-figure');
    const ws = this.app.workspace();
    const source: ChartSource = {
      runs: () => ws.runNames(),
      window: (run, tag, q) => ws.getWindow(run, tag, q),
      alerts: () => this.app.alerts.list(),
      thresholds: (run) => ({
        ...setValues(this.app.alerts.thresholdsOf(run)),
        ...this.app.settings().thresholds,
      }),
      scope: (run) => runScope(ws.runInfoOf(run)?.tags ?? [], ws.configOf(run)),
    };
    if (ws.thinned()) {
      // A zoomed chart of series the memory cap thinned is drawn from their exact values: the windows the figure
      // asks for are read back from the files first (a failing figure fails below, as it would anyway).
      const asked: Parameters<ChartSource['window']>[] = [];
      try {
        chartFigure({ ...source, window: (...a) => (asked.push(a), source.window(...a)) }, args);
      } catch {
        // Said by the figure itself below.
      }
      for (const [run, tag, q] of asked) await ws.readExact(run, tag, q);
    }
    return exportChartFigure(source, args);
  }

  /** Starts writing runs' data into `folder` (export.run): progress per file and at the end; the folder is remembered. */
  async run(args: RequestArgs['export.run']): Promise<RunExportStarted> {
    const { startRunExport } = await import('./run-export');
    return startRunExport({
      root: this.app.root(),
      known: this.app
        .workspace()
        .listRuns()
        .map((r) => r.run),
      runs: args.runs,
      folder: args.folder,
      figures: { userThresholds: this.app.settings().thresholds, alerts: this.app.alerts.list() },
      onProgress: (p) => this.app.progress(p),
      onFinished: (result) => this.app.remember(result.folder),
    });
  }

  /**
   * An alert's incident snapshot (the incident of the id at `step` when there is one, else its newest: active,
   * else the latest cleared) into `folder`, else the remembered export folder, else one the host's picker gives;
   * the folder used is remembered.
   */
  async incident(id: string, folder?: string, step?: number): Promise<IncidentSnapshot> {
    const root = this.app.root();
    if (root === null) throw new ApiError('unavailable', 'no folder is open');
    const incidents = this.app.alerts.list().filter((a) => a.id === id);
    // An escalation can move the step while the window still shows the old one: then the newest incident.
    const alert = incidents.find((a) => a.step === step) ?? incidents[0];
    if (!alert) throw new ApiError('not-found', `no alert ${id}`);
    const out = await resolveExportFolder(
      folder,
      this.app.settings().exportFolder,
      this.app.pickExportFolder,
    );
    const ws = this.app.workspace();
    const run = ws.runInfoOf(alert.run);
    const [{ writeIncident }, { ExportUsageError }] = await Promise.all([
      import('../export/incident'),
      import('../export/export-run'),
    ]);
    try {
      const snap = await writeIncident({
        alert,
        root,
        out,
        reader: ws,
        tags: run?.tags ?? [],
        config: ws.configOf(alert.run),
        thresholds: this.app.alerts.thresholdsOf(alert.run),
        scope: this.app.alerts.scopeOf(alert.run),
        systemSampleNear: (ms) => this.app.systemNear(ms, INCIDENT_SAMPLE_TOLERANCE_MS),
      });
      if (snap.written.length > 0) this.app.remember(out);
      return snap;
    } catch (err) {
      if (err instanceof ExportUsageError) throw new ApiError('bad-request', err.message);
      throw err;
    }
  }
}
