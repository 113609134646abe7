// One trackio run of a project database, followed live by rowid: metrics, system metrics, config, tables, histograms, traces.

import type Database from 'better-sqlite3';
import type { SourceFormatName } from '../../shared/formats';
import { HistogramStore } from '../readers/histogram-store';
import { isPlainObject } from '../readers/rows';
import type { SourceReadResult } from '../readers/types';
import { parseJsonLenient } from '../readers/values';
import { SampleStore } from '../samples/sample-store';
import { DbRunReader, schemaError } from '../sqlite-db/db-run-reader';
import {
  isoSeconds,
  storedJson,
  trackioConfig,
  trackioNumber,
  trackioSchema,
  type TrackioSchema,
} from './trackio-db';
import {
  TRACKIO_HISTOGRAM,
  TRACKIO_TABLE,
  trackioHistogramBuckets,
  trackioTableRows,
  traceSample,
} from './trackio-values';

interface MetricRow {
  id: number;
  timestamp: unknown;
  step: unknown;
  metrics: unknown;
}

interface TraceRow {
  rid: number;
  timestamp: unknown;
  step: unknown;
  key: unknown;
  messages: unknown;
  metadata: unknown;
}

/**
 * Tags: each numeric top-level key of a `metrics` row's JSON (`trackioNumber`), at the row's step and timestamp;
 * `system/<key>` for `system_metrics` rows, numbered by sample (they carry no step), as W&B's system stats are.
 * Config: the run's `configs` row, deserialized as trackio does. Samples (origin `trackio`): a `trackio.table` value
 * is a sample per row of the source named by its key, at the row's step; a `traces` row a sample of its key at its
 * step (`traceSample`); their number columns' per-step means are charted as `samples/KEY/mean/COLUMN` once a
 * poll has read them. Histograms: a `trackio.histogram` value at the row's step and time. A row whose JSON does
 * not parse, or a table, histogram or trace that is not one, is a `decode` error at its id (a trace's rowid); the
 * rest is read. Each poll asks only for rows past the last id seen.
 */
export class TrackioReader extends DbRunReader {
  readonly format: SourceFormatName = 'trackio';
  private schema: TrackioSchema | null = null;
  private lastMetric = 0;
  private lastSystem = 0;
  private systemSamples = 0;
  private configText: string | null = null;
  private lastTrace = 0;
  /** Tables and traces; their number columns' per-step means charted in `series` (SampleMeans). */
  private samples = new SampleStore(undefined, () => this.series);
  private histos = new HistogramStore();

  override result(): SourceReadResult {
    return { ...super.result(), samples: this.samples, histogramSteps: this.histos };
  }

  protected restart(): void {
    this.lastTrace = 0;
    this.samples = new SampleStore(undefined, () => this.series);
    this.histos = new HistogramStore();
    this.schema = null;
    this.lastMetric = 0;
    this.lastSystem = 0;
    this.systemSamples = 0;
    this.configText = null;
    this.config = null;
  }

  protected async poll(db: Database.Database, _final: boolean): Promise<void> {
    // A newer trackio logging into an older project adds `traces` (CREATE TABLE IF NOT EXISTS) while it is read.
    if (!this.schema?.traces && (this.schema === null || hasTraces(db))) this.schema = trackioSchema(db);
    const s = this.schema;
    if (!s)
      throw schemaError('not a trackio database: no metrics table with run_name, step and metrics columns');
    // `+`: the rowid range, not trackio's (run, step) index, whose order is the step's: a poll then reads only the
    // rows past the last id (the index would read every row of the run and sort them, on every poll).
    const where = `+${s.runKey} = ?`;
    const metrics = db.prepare<[number, string, number], MetricRow>(
      `SELECT id, timestamp, step, metrics FROM metrics WHERE id > ? AND ${where} ORDER BY id LIMIT ?`,
    );
    await this.drain(
      metrics,
      () => this.lastMetric,
      (r) => this.metricRow(r),
    );
    if (s.systemMetrics) {
      const system = db.prepare<[number, string, number], Omit<MetricRow, 'step'>>(
        `SELECT id, timestamp, metrics FROM system_metrics WHERE id > ? AND ${where} ORDER BY id LIMIT ?`,
      );
      await this.drain(
        system,
        () => this.lastSystem,
        (r) => this.systemRow(r),
      );
    }
    if (s.traces) {
      // `id` is trackio's text key: the rowid is the order rows were added in.
      const traces = db.prepare<[number, string, number], TraceRow>(
        `SELECT rowid AS rid, timestamp, step, key, messages, metadata FROM traces WHERE rowid > ? AND ${where}
         ORDER BY rowid LIMIT ?`,
      );
      await this.drain(
        traces,
        () => this.lastTrace,
        (r) => this.traceRow(r),
      );
    }
    // A table value is a whole step, as are the traces of one `log` (one transaction): their means chart at once.
    this.samples.closeSteps();
    if (s.configs) {
      const row = db
        .prepare<
          [string],
          { config: unknown }
        >(`SELECT config FROM configs WHERE ${s.runKey} = ? ORDER BY id DESC LIMIT 1`)
        .get(this.member);
      const text = storedJson(row?.config);
      if (text !== null && text !== this.configText) {
        this.configText = text;
        const parsed = parseJsonLenient(text);
        const config = parsed.ok ? trackioConfig(parsed.value) : null;
        if (config) this.config = config;
        else this.error('decode', 0, 'trackio config: not a JSON object');
      }
    }
  }

  private payload(r: { id: number; metrics: unknown }, table: string): Record<string, unknown> | null {
    const text = storedJson(r.metrics);
    const parsed = text === null ? null : parseJsonLenient(text);
    if (
      parsed?.ok &&
      typeof parsed.value === 'object' &&
      parsed.value !== null &&
      !Array.isArray(parsed.value)
    )
      return parsed.value as Record<string, unknown>;
    this.error('decode', r.id, `trackio ${table} row ${r.id}: metrics is not a JSON object`);
    return null;
  }

  private metricRow(r: MetricRow): void {
    this.lastMetric = r.id;
    const values = this.payload(r, 'metrics');
    if (!values) return;
    const step = typeof r.step === 'number' ? r.step : Number(r.step);
    if (!Number.isFinite(step)) return this.error('decode', r.id, `trackio metrics row ${r.id}: no step`);
    const wall = isoSeconds(r.timestamp);
    for (const [k, v] of Object.entries(values)) {
      const n = trackioNumber(v);
      if (n !== undefined) this.series.add(k, step, wall, n);
      else if (isPlainObject(v) && v._type === TRACKIO_TABLE) {
        const rows = trackioTableRows(v);
        if (!rows.ok) this.error('decode', r.id, `trackio metrics row ${r.id}: table ${k}: ${rows.message}`);
        else for (const row of rows.value) this.samples.add(k, 'trackio', step, row, wall);
      } else if (isPlainObject(v) && v._type === TRACKIO_HISTOGRAM) {
        const buckets = trackioHistogramBuckets(v);
        if (!buckets.ok)
          this.error('decode', r.id, `trackio metrics row ${r.id}: histogram ${k}: ${buckets.message}`);
        else if (buckets.value !== null) this.histos.add(k, step, wall, buckets.value);
      }
    }
    this.countRecords(1);
  }

  private traceRow(r: TraceRow): void {
    this.lastTrace = r.rid;
    const step = typeof r.step === 'number' ? r.step : Number(r.step);
    const at = `trackio traces row ${r.rid}`;
    if (typeof r.key !== 'string') return this.error('decode', r.rid, `${at}: no key`);
    if (!Number.isFinite(step)) return this.error('decode', r.rid, `${at}: no step`);
    const messages = parseJsonLenient(storedJson(r.messages) ?? '');
    const metadata = parseJsonLenient(storedJson(r.metadata) ?? '');
    if (!messages.ok || !metadata.ok)
      return this.error('decode', r.rid, `${at}: ${messages.ok ? 'metadata' : 'messages'} is not JSON`);
    const sample = traceSample(messages.value, metadata.value);
    if (!sample.ok) return this.error('decode', r.rid, `${at}: ${sample.message}`);
    this.samples.add(r.key, 'trackio', step, sample.value, isoSeconds(r.timestamp));
    this.countRecords(1);
  }

  private systemRow(r: Omit<MetricRow, 'step'>): void {
    this.lastSystem = r.id;
    const values = this.payload(r, 'system_metrics');
    if (!values) return;
    const step = this.systemSamples++;
    const wall = isoSeconds(r.timestamp);
    for (const [k, v] of Object.entries(values)) {
      const n = trackioNumber(v);
      if (n !== undefined) this.series.add(`system/${k}`, step, wall, n);
    }
    this.countRecords(1);
  }
}

/** Whether the database has a `traces` table (one small query: asked on each poll of a database without one). */
function hasTraces(db: Database.Database): boolean {
  return (
    db
      .prepare<
        [],
        { n: number }
      >("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'traces'")
      .get()!.n > 0
  );
}
