// One trackio run of a project database, followed live by rowid: metrics, system metrics, config.

import type Database from 'better-sqlite3';
import type { SourceFormatName } from '../../shared/formats';
import { parseJsonLenient } from '../readers/values';
import { DB_BATCH_ROWS, DbRunReader, schemaError } from '../sqlite-db/db-run-reader';
import {
  isoSeconds,
  storedJson,
  trackioConfig,
  trackioNumber,
  trackioSchema,
  type TrackioSchema,
} from './trackio-db';

interface MetricRow {
  id: number;
  timestamp: unknown;
  step: unknown;
  metrics: unknown;
}

/**
 * Tags: each numeric top-level key of a `metrics` row's JSON (`trackioNumber`), at the row's step and timestamp;
 * `system/<key>` for `system_metrics` rows, numbered by sample (they carry no step), as W&B's system stats are.
 * Config: the run's `configs` row, deserialized as trackio does. A row whose JSON does not parse is a `decode`
 * error at its id; the rows after it are read. Each poll asks only for rows past the last id seen.
 */
export class TrackioReader extends DbRunReader {
  readonly format: SourceFormatName = 'trackio';
  private schema: TrackioSchema | null = null;
  private lastMetric = 0;
  private lastSystem = 0;
  private systemSamples = 0;
  private configText: string | null = null;

  protected restart(): void {
    this.schema = null;
    this.lastMetric = 0;
    this.lastSystem = 0;
    this.systemSamples = 0;
    this.configText = null;
    this.config = null;
  }

  protected async poll(db: Database.Database, _final: boolean): Promise<void> {
    this.schema ??= trackioSchema(db);
    const s = this.schema;
    if (!s)
      throw schemaError('not a trackio database: no metrics table with run_name, step and metrics columns');
    // `+`: the rowid range, not trackio's (run, step) index, whose order is the step's: a poll then reads only the
    // rows past the last id (the index would read every row of the run and sort them, on every poll).
    const where = `+${s.runKey} = ?`;
    const metrics = db.prepare<[number, string, number], MetricRow>(
      `SELECT id, timestamp, step, metrics FROM metrics WHERE id > ? AND ${where} ORDER BY id LIMIT ?`,
    );
    for (;;) {
      const rows = metrics.all(this.lastMetric, this.member, DB_BATCH_ROWS);
      for (const r of rows) this.metricRow(r);
      if (rows.length < DB_BATCH_ROWS) break;
      await this.pause();
    }
    if (s.systemMetrics) {
      const system = db.prepare<[number, string, number], Omit<MetricRow, 'step'>>(
        `SELECT id, timestamp, metrics FROM system_metrics WHERE id > ? AND ${where} ORDER BY id LIMIT ?`,
      );
      for (;;) {
        const rows = system.all(this.lastSystem, this.member, DB_BATCH_ROWS);
        for (const r of rows) this.systemRow(r);
        if (rows.length < DB_BATCH_ROWS) break;
        await this.pause();
      }
    }
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
    }
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
