// Writes trackio project databases and MLflow SQLite tracking stores with better-sqlite3, for the readers' tests.
//
// Schemas (see test/fixtures/mlflow/ORIGIN.md): trackio's `SQLiteStorage.init_db` (trackio/sqlite_storage.py at
// trackio commit 2a027522c487: metrics, configs, system_metrics, traces with run_id; `legacy` leaves run_id out and
// has no traces table, as trackio before run ids; `traces: false` no traces table, as trackio before traces; JSON
// columns written as bytes, a BLOB, as trackio's `orjson.dumps` has since 0.5.0, or as text with `textJson`, as
// before). Logged values as trackio 2a027522c487 stores them: `Table._to_dict` ({_type: 'trackio.table', _value: row
// dicts}), `Histogram._to_dict` ({_type: 'trackio.histogram', bins, values}), and `Trace._to_dict` payloads split out
// of the metrics into `traces` rows by `SQLiteStorage._split_trace_metrics` / `_insert_trace_rows`. MLflow's
// SQLAlchemy models (mlflow/store/tracking/dbmodels/models.py at mlflow commit 001cc178: experiments, runs, metrics,
// latest_metrics, params, tags, alembic_version).

import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';

/** trackio's `serialize_values`: non-finite floats, at any depth, as "Infinity", "-Infinity", "NaN". */
function serialize(v: unknown): unknown {
  if (typeof v === 'number' && !Number.isFinite(v))
    return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  if (Array.isArray(v)) return v.map(serialize);
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, serialize(x)]));
  return v;
}

const jsonText = (o: unknown): string => JSON.stringify(serialize(o));

/** A `trackio.Table` as `Table._to_dict` stores it: its rows as dicts (a row's media as their stored dicts). */
export function trackioTable(rows: Record<string, unknown>[]): Record<string, unknown> {
  return { _type: 'trackio.table', _value: rows };
}

/** A `trackio.Histogram` as `Histogram._to_dict` stores it: k + 1 bin edges, k counts. */
export function trackioHistogram(bins: number[], values: number[]): Record<string, unknown> {
  return { _type: 'trackio.histogram', bins, values };
}

/** A `trackio.Trace` as `Trace._to_dict` gives it to the storage, which moves it to the `traces` table. */
export function trackioTrace(messages: Record<string, unknown>[], metadata: Record<string, unknown> = {}) {
  return { _type: 'trackio.trace', messages, metadata };
}

const isTrace = (v: unknown): v is ReturnType<typeof trackioTrace> =>
  typeof v === 'object' && v !== null && (v as { _type?: unknown })._type === 'trackio.trace';

/** `_flatten_trace_search_text`: every scalar of the messages and metadata, lower-cased. */
function searchText(v: unknown, parts: string[] = []): string[] {
  if (v === null || v === undefined) return parts;
  if (Array.isArray(v)) v.forEach((x) => searchText(x, parts));
  else if (typeof v === 'object') Object.values(v).forEach((x) => searchText(x, parts));
  else parts.push(String(v));
  return parts;
}

/** `datetime.now(timezone.utc).isoformat()` of a time in microseconds since the epoch. */
export function isoMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  const base = new Date(ms).toISOString().slice(0, 19);
  const frac = us % 1_000_000;
  return `${base}${frac === 0 ? '' : `.${String(frac).padStart(6, '0')}`}+00:00`;
}

export class TrackioDb {
  readonly db: Database.Database;
  private readonly legacy: boolean;
  private readonly textJson: boolean;
  private readonly traces: boolean;

  /** `wal`: the journal mode trackio sets off Spaces (WAL); else DELETE, as on Spaces. `textJson`: JSON columns as
   * text, as trackio before 0.5.0 wrote them (else bytes, as `orjson.dumps` gives them to Python's sqlite3). */
  constructor(
    readonly path: string,
    opts: { wal?: boolean; legacy?: boolean; textJson?: boolean; traces?: boolean } = {},
  ) {
    this.legacy = opts.legacy ?? false;
    this.textJson = opts.textJson ?? false;
    this.traces = !this.legacy && opts.traces !== false;
    this.db = new Database(path);
    this.db.pragma(`journal_mode = ${opts.wal === false ? 'DELETE' : 'WAL'}`);
    const runId = this.legacy ? '' : 'run_id TEXT NOT NULL,';
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS metrics (id INTEGER PRIMARY KEY AUTOINCREMENT, ${runId}
        timestamp TEXT NOT NULL, run_name TEXT NOT NULL, step INTEGER NOT NULL, metrics TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS configs (id INTEGER PRIMARY KEY AUTOINCREMENT, ${runId}
        run_name TEXT NOT NULL, config TEXT NOT NULL, created_at TEXT NOT NULL,
        UNIQUE(${this.legacy ? 'run_name' : 'run_id'}));
      CREATE TABLE IF NOT EXISTS system_metrics (id INTEGER PRIMARY KEY AUTOINCREMENT, ${runId}
        timestamp TEXT NOT NULL, run_name TEXT NOT NULL, metrics TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS project_metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS idx_metrics_run_step ON metrics(${this.legacy ? 'run_name' : 'run_id'}, step);
    `);
    if (this.traces)
      this.db.exec(`
        CREATE TABLE IF NOT EXISTS traces (id TEXT PRIMARY KEY, run_id TEXT NOT NULL, timestamp TEXT NOT NULL,
          run_name TEXT NOT NULL, step INTEGER NOT NULL, key TEXT NOT NULL, trace_index INTEGER,
          messages TEXT NOT NULL, metadata TEXT NOT NULL, search_text TEXT NOT NULL, log_id TEXT, space_id TEXT);
        CREATE INDEX IF NOT EXISTS idx_traces_run_step ON traces(run_id, step);
        CREATE INDEX IF NOT EXISTS idx_traces_run_timestamp ON traces(run_id, timestamp);
        CREATE INDEX IF NOT EXISTS idx_traces_search ON traces(search_text);
      `);
  }

  /** A JSON column's value as this trackio writes it. */
  private json(o: unknown): string | Buffer {
    const text = jsonText(o);
    return this.textJson ? text : Buffer.from(text, 'utf8');
  }

  private ids(run: { id: string; name: string }): unknown[] {
    return this.legacy ? [] : [run.id];
  }

  private cols(): string {
    return this.legacy ? '' : 'run_id, ';
  }

  config(run: { id: string; name: string }, config: Record<string, unknown>, atUs = 1.7e15): void {
    const q = this.legacy ? '?, ?, ?' : '?, ?, ?, ?';
    this.db
      .prepare(`INSERT OR REPLACE INTO configs (${this.cols()}run_name, config, created_at) VALUES (${q})`)
      .run(...this.ids(run), run.name, this.json(config), isoMicros(atUs));
  }

  /** `bulk_log` of one entry: traces (a value, or a list's items) become `traces` rows, the rest the metrics row. */
  log(run: { id: string; name: string }, step: number, metrics: Record<string, unknown>, atUs: number): void {
    const clean: Record<string, unknown> = {};
    const traces: { key: string; index: number | null; trace: ReturnType<typeof trackioTrace> }[] = [];
    for (const [key, value] of Object.entries(metrics)) {
      const list = Array.isArray(value);
      const items: unknown[] = list ? value : [value];
      const found = items.flatMap((x, i) => (isTrace(x) ? [{ key, index: list ? i : null, trace: x }] : []));
      if (found.length === 0) {
        clean[key] = value;
        continue;
      }
      if (list && found.length < items.length) clean[key] = items.filter((x) => !isTrace(x));
      traces.push(...found);
    }
    if (traces.length > 0 && !this.traces) throw new Error('this trackio has no traces table');
    const q = this.legacy ? '?, ?, ?, ?' : '?, ?, ?, ?, ?';
    const at = isoMicros(atUs);
    this.db.transaction(() => {
      this.db
        .prepare(`INSERT INTO metrics (${this.cols()}timestamp, run_name, step, metrics) VALUES (${q})`)
        .run(...this.ids(run), at, run.name, step, this.json(clean));
      const logId = randomUUID().replaceAll('-', '');
      for (const t of traces) {
        const id = [run.id, logId, t.key, ...(t.index === null ? [] : [String(t.index)])].join(':');
        const search = `${id} ${t.key} ${searchText([t.trace.messages, t.trace.metadata]).join(' ')}`;
        this.traceRow(
          run,
          id,
          at,
          step,
          t.key,
          t.index,
          this.json(t.trace.messages),
          this.json(t.trace.metadata),
          search,
        );
      }
    })();
  }

  /** A `traces` row whose messages and metadata are written as given (a damaged row). */
  traceRaw(
    run: { id: string; name: string },
    step: number,
    key: string,
    messages: string,
    metadata: string,
  ): void {
    this.traceRow(
      run,
      `${run.id}:${randomUUID()}:${key}`,
      isoMicros(1.7e15),
      step,
      key,
      null,
      messages,
      metadata,
      key,
    );
  }

  private traceRow(
    run: { id: string; name: string },
    id: string,
    at: string,
    step: number,
    key: string,
    index: number | null,
    messages: string | Buffer,
    metadata: string | Buffer,
    search: string,
  ): void {
    this.db
      .prepare(
        `INSERT OR IGNORE INTO traces (id, run_id, timestamp, run_name, step, key, trace_index, messages, metadata,
         search_text, log_id, space_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)`,
      )
      .run(id, run.id, at, run.name, step, key, index, messages, metadata, search.toLowerCase());
  }

  /** A row whose metrics text is written as given (a damaged row). */
  logRaw(run: { id: string; name: string }, step: number, text: string, atUs: number): void {
    const q = this.legacy ? '?, ?, ?, ?' : '?, ?, ?, ?, ?';
    this.db
      .prepare(`INSERT INTO metrics (${this.cols()}timestamp, run_name, step, metrics) VALUES (${q})`)
      .run(...this.ids(run), isoMicros(atUs), run.name, step, text);
  }

  system(run: { id: string; name: string }, metrics: Record<string, unknown>, atUs: number): void {
    const q = this.legacy ? '?, ?, ?' : '?, ?, ?, ?';
    this.db
      .prepare(`INSERT INTO system_metrics (${this.cols()}timestamp, run_name, metrics) VALUES (${q})`)
      .run(...this.ids(run), isoMicros(atUs), run.name, this.json(metrics));
  }

  close(): void {
    this.db.close();
  }
}

/** The alembic revision the writer stamps: rlwatch reads the tables' columns and never this. */
export const MLFLOW_ALEMBIC_STAMP = '001cc178-models';

export interface MlflowDbRun {
  runUuid: string;
  name?: string | null;
  experimentId?: number;
  status?: 'RUNNING' | 'SCHEDULED' | 'FINISHED' | 'FAILED' | 'KILLED';
  startMs?: number;
  lifecycleStage?: 'active' | 'deleted';
}

export class MlflowDb {
  readonly db: Database.Database;

  constructor(
    readonly path: string,
    opts: { wal?: boolean } = {},
  ) {
    this.db = new Database(path);
    // MLflow's SQLAlchemy engine leaves SQLite's default journal (DELETE).
    if (opts.wal) this.db.pragma('journal_mode = WAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS alembic_version (version_num VARCHAR(32) NOT NULL, CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num));
      CREATE TABLE IF NOT EXISTS experiments (experiment_id INTEGER NOT NULL, name VARCHAR(256) NOT NULL,
        artifact_location VARCHAR(256), lifecycle_stage VARCHAR(32), creation_time BIGINT, last_update_time BIGINT,
        CONSTRAINT experiment_pk PRIMARY KEY (experiment_id), UNIQUE (name));
      CREATE TABLE IF NOT EXISTS runs (run_uuid VARCHAR(32) NOT NULL, name VARCHAR(250), source_type VARCHAR(20),
        source_name VARCHAR(500), entry_point_name VARCHAR(50), user_id VARCHAR(256), status VARCHAR(9),
        start_time BIGINT, end_time BIGINT, deleted_time BIGINT, source_version VARCHAR(50),
        lifecycle_stage VARCHAR(20), artifact_uri VARCHAR(200), experiment_id INTEGER,
        CONSTRAINT run_pk PRIMARY KEY (run_uuid), FOREIGN KEY(experiment_id) REFERENCES experiments (experiment_id));
      CREATE TABLE IF NOT EXISTS metrics (key VARCHAR(250) NOT NULL, value FLOAT NOT NULL, timestamp BIGINT NOT NULL,
        run_uuid VARCHAR(32) NOT NULL, step BIGINT DEFAULT '0' NOT NULL, is_nan BOOLEAN DEFAULT '0' NOT NULL,
        CONSTRAINT metric_pk PRIMARY KEY (key, timestamp, step, run_uuid, value, is_nan),
        FOREIGN KEY(run_uuid) REFERENCES runs (run_uuid));
      CREATE INDEX IF NOT EXISTS index_metrics_run_uuid ON metrics (run_uuid);
      CREATE TABLE IF NOT EXISTS latest_metrics (key VARCHAR(250) NOT NULL, value FLOAT NOT NULL, timestamp BIGINT,
        step BIGINT NOT NULL, is_nan BOOLEAN NOT NULL, run_uuid VARCHAR(32) NOT NULL,
        CONSTRAINT latest_metric_pk PRIMARY KEY (key, run_uuid));
      CREATE TABLE IF NOT EXISTS params (key VARCHAR(250) NOT NULL, value VARCHAR(8000) NOT NULL,
        run_uuid VARCHAR(32) NOT NULL, CONSTRAINT param_pk PRIMARY KEY (key, run_uuid));
      CREATE TABLE IF NOT EXISTS tags (key VARCHAR(250) NOT NULL, value VARCHAR(8000), run_uuid VARCHAR(32) NOT NULL,
        CONSTRAINT tag_pk PRIMARY KEY (key, run_uuid));
    `);
    this.db.prepare('INSERT OR IGNORE INTO alembic_version VALUES (?)').run(MLFLOW_ALEMBIC_STAMP);
    this.db
      .prepare(
        "INSERT OR IGNORE INTO experiments VALUES (0, 'Default', './mlruns/0', 'active', 1700000000000, 1700000000000)",
      )
      .run();
  }

  /** `mlflow.start_run(run_name=…)`: the run row and its `mlflow.runName` tag. */
  startRun(r: MlflowDbRun): void {
    this.db
      .prepare(
        `INSERT INTO runs (run_uuid, name, source_type, status, start_time, lifecycle_stage, experiment_id, artifact_uri)
         VALUES (?, ?, 'LOCAL', ?, ?, ?, ?, ?)`,
      )
      .run(
        r.runUuid,
        r.name ?? null,
        r.status ?? 'RUNNING',
        r.startMs ?? 1_700_000_000_000,
        r.lifecycleStage ?? 'active',
        r.experimentId ?? 0,
        `./mlruns/0/${r.runUuid}/artifacts`,
      );
    if (r.name) this.tag(r.runUuid, 'mlflow.runName', r.name);
  }

  /** `MlflowClient.set_terminated`. */
  endRun(runUuid: string, status: 'FINISHED' | 'FAILED' | 'KILLED', endMs = 1_700_000_100_000): void {
    this.db
      .prepare('UPDATE runs SET status = ?, end_time = ? WHERE run_uuid = ?')
      .run(status, endMs, runUuid);
  }

  param(runUuid: string, key: string, value: string): void {
    this.db.prepare('INSERT OR REPLACE INTO params VALUES (?, ?, ?)').run(key, value, runUuid);
  }

  tag(runUuid: string, key: string, value: string): void {
    this.db.prepare('INSERT OR REPLACE INTO tags VALUES (?, ?, ?)').run(key, value, runUuid);
  }

  /** `log_metric`: a row per point; NaN as value 0 with is_nan 1 (the models read `value if not is_nan else nan`). */
  metric(runUuid: string, key: string, value: number, timestampMs: number, step: number): void {
    const isNan = Number.isNaN(value);
    const stored = isNan ? 0 : value;
    this.db
      .prepare(
        'INSERT OR IGNORE INTO metrics (key, value, timestamp, run_uuid, step, is_nan) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(key, stored, timestampMs, runUuid, step, isNan ? 1 : 0);
    this.db
      .prepare('INSERT OR REPLACE INTO latest_metrics VALUES (?, ?, ?, ?, ?, ?)')
      .run(key, stored, timestampMs, step, isNan ? 1 : 0, runUuid);
  }

  close(): void {
    this.db.close();
  }
}
