// A trackio project database ({project}.db): recognising it, its runs, and its values as trackio stores them.

import type Database from 'better-sqlite3';
import { tableColumns, type DbRun } from '../sqlite-db/open-db';
import { decodeUtf8 } from '../readers/values';

/**
 * The tables rlwatch reads, as trackio 0.36.0 (`trackio/sqlite_storage.py`, `SQLiteStorage.init_db`) creates them:
 * `metrics (id, run_id, timestamp, run_name, step, metrics)`, `configs (id, run_id, run_name, config, created_at)`,
 * `system_metrics (id, run_id, timestamp, run_name, metrics)`, and (trackio at commit 2a027522c487) `traces (id TEXT
 * PRIMARY KEY, run_id, timestamp, run_name, step, key, trace_index, messages, metadata, search_text, …)`, read by
 * rowid. Databases of trackio before run ids have no `run_id` column: a run is then its `run_name`; older ones have
 * no `traces` table.
 */
export interface TrackioSchema {
  /** The column naming a run: `run_id` where the tables have it, else `run_name`. */
  runKey: 'run_id' | 'run_name';
  configs: boolean;
  systemMetrics: boolean;
  traces: boolean;
}

/** The schema of a trackio database, or null when it is not one (no `metrics` table of trackio's columns). */
export function trackioSchema(db: Database.Database): TrackioSchema | null {
  const tables = tableColumns(db);
  const metrics = tables.get('metrics');
  if (!metrics || !['id', 'timestamp', 'run_name', 'step', 'metrics'].every((c) => metrics.has(c)))
    return null;
  const runKey = metrics.has('run_id') ? 'run_id' : 'run_name';
  const has = (t: string, cols: string[]): boolean => {
    const c = tables.get(t);
    return c !== undefined && [runKey, ...cols].every((x) => c.has(x));
  };
  return {
    runKey,
    configs: has('configs', ['id', 'config']),
    systemMetrics: has('system_metrics', ['id', 'timestamp', 'metrics']),
    traces: has('traces', ['timestamp', 'step', 'key', 'messages', 'metadata']),
  };
}

/** What a database's runs were at the last listing: the file listed, the rowid read up to in each table, the runs in
 * order. */
interface Listed {
  identity: string;
  upTo: number[];
  runs: Map<string, DbRun>;
}

/** The last listing of each database path (one entry a path: another file there replaces it), so a listing reads only
 * the rows added since: discovery lists a database again on its writes, and a full GROUP BY of millions of rows would
 * hold the event loop each time. */
const listed = new Map<string, Listed>();

/**
 * The runs of a trackio database, first started first: by their `configs` row (trackio writes it when a run starts),
 * then by their first metrics or system metrics row. Where run ids exist, a run is its id, named by its first row's
 * `run_name`. `cache` (the path and the file's identity there): later listings of that file read only rows past the
 * last one listed.
 */
export function trackioRuns(
  db: Database.Database,
  s: TrackioSchema,
  cache?: { path: string; identity: string },
): DbRun[] {
  const tables = [s.configs ? 'configs' : null, 'metrics', s.systemMetrics ? 'system_metrics' : null];
  const ends = tables.map((t) =>
    t === null ? 0 : (db.prepare<[], { m: number | null }>(`SELECT MAX(id) AS m FROM ${t}`).get()?.m ?? 0),
  );
  let last = cache === undefined ? undefined : listed.get(cache.path);
  // A database replaced or rows deleted from its end: list it afresh.
  if (!last || last.identity !== cache?.identity || last.upTo.some((n, i) => ends[i]! < n))
    last = { identity: cache?.identity ?? '', upTo: tables.map(() => 0), runs: new Map() };
  tables.forEach((t, i) => {
    if (t === null || ends[i]! <= last.upTo[i]!) return;
    const rows =
      last.upTo[i] === 0 && t !== 'configs' && leadsAnIndex(db, t, s.runKey)
        ? runsByIndex(db, t, s.runKey)
        : db
            .prepare<[number, number], { member: unknown; name: unknown }>(
              `SELECT ${s.runKey} AS member, run_name AS name, MIN(id) AS first FROM ${t}
               WHERE id > ? AND id <= ? GROUP BY 1 ORDER BY first`,
            )
            .all(last.upTo[i]!, ends[i]!);
    for (const r of rows) {
      if (r.member === null || r.member === undefined) continue;
      const member = String(r.member);
      if (!last.runs.has(member))
        last.runs.set(member, {
          member,
          name: r.name === null || r.name === undefined ? member : String(r.name),
        });
    }
    last.upTo[i] = ends[i]!;
  });
  if (cache !== undefined) listed.set(cache.path, last);
  return [...last.runs.values()];
}

/** Whether an index of `table` starts with `column` (trackio's `(run_id, step)` and `(run_id, timestamp)`). */
function leadsAnIndex(db: Database.Database, table: string, column: string): boolean {
  return (
    db
      .prepare<[string, string], { n: number }>(
        `SELECT COUNT(*) AS n FROM pragma_index_list(?) il, pragma_index_info(il.name) ii
         WHERE ii.seqno = 0 AND ii.name = ?`,
      )
      .get(table, column)!.n > 0
  );
}

/**
 * A table's runs by a walk over its index from one run key to the next (a seek each: O(runs · log rows), where a
 * GROUP BY reads every row, a second per million), each with its first row by step (its name; `first`: that row's id,
 * the order). For the first listing of a table; later ones read only the new rows.
 */
function runsByIndex(
  db: Database.Database,
  table: string,
  key: string,
): { member: unknown; name: unknown; first: number }[] {
  const firstKey = db.prepare<[], { member: unknown }>(
    `SELECT ${key} AS member FROM ${table} WHERE ${key} IS NOT NULL ORDER BY ${key} LIMIT 1`,
  );
  const nextKey = db.prepare<[unknown], { member: unknown }>(
    `SELECT ${key} AS member FROM ${table} WHERE ${key} > ? ORDER BY ${key} LIMIT 1`,
  );
  // The run's first entry in the index: its first row by step.
  const firstRow = db.prepare<[unknown], { name: unknown; id: number }>(
    `SELECT run_name AS name, id FROM ${table} WHERE ${key} = ? ORDER BY ${key} LIMIT 1`,
  );
  const out: { member: unknown; name: unknown; first: number }[] = [];
  for (let r = firstKey.get(); r !== undefined; r = nextKey.get(r.member)) {
    const row = firstRow.get(r.member);
    if (row) out.push({ member: r.member, name: row.name, first: row.id });
  }
  return out.sort((a, b) => a.first - b.first);
}

/**
 * A stored metrics or config value as trackio reads it back (`deserialize_values`: top-level "Infinity",
 * "-Infinity" and "NaN" strings are the non-finite floats); a metric is a number (a bool, text or media is not).
 */
export function trackioNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (v === 'Infinity') return Number.POSITIVE_INFINITY;
  if (v === '-Infinity') return Number.NEGATIVE_INFINITY;
  if (v === 'NaN') return Number.NaN;
  return undefined;
}

/** `deserialize_values` of a config object (top-level values only, as trackio does). */
export function trackioConfig(v: unknown): Record<string, unknown> | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (k === '__proto__') continue;
    out[k] = typeof x === 'string' && trackioNumber(x) !== undefined ? trackioNumber(x) : x;
  }
  return out;
}

/**
 * A stored JSON column (`metrics`, `config`) as text. trackio from 0.5.0 writes `orjson.dumps(...)`, bytes, which
 * Python's sqlite3 stores as a BLOB despite the TEXT column; earlier versions wrote text. Null when it is neither.
 */
export function storedJson(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return decodeUtf8(v);
  return null;
}

const ISO = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?(Z|[+-]\d\d:\d\d)?$/;

/**
 * Seconds since the epoch of trackio's `datetime.now(timezone.utc).isoformat()`, exactly as Python's
 * `datetime.fromisoformat(ts).timestamp()` gives them (whole microseconds over 10^6); a time without an offset is
 * taken as UTC. NaN when it is not one.
 */
export function isoSeconds(ts: unknown): number {
  if (typeof ts !== 'string') return Number.NaN;
  const m = ISO.exec(ts.replace(' ', 'T'));
  if (!m) return Number.NaN;
  const whole = Date.parse(`${m[1]}${m[3] === undefined || m[3] === 'Z' ? 'Z' : m[3]}`);
  if (!Number.isFinite(whole)) return Number.NaN;
  const micro = m[2] === undefined ? 0 : Number(m[2].padEnd(6, '0'));
  return ((whole / 1000) * 1e6 + micro) / 1e6;
}
