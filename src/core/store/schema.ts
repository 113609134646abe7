// Schema migrations keyed by PRAGMA user_version; each step runs once, inside one write transaction.

import type Database from 'better-sqlite3';

type Db = Database.Database;

/** Index i migrates user_version i → i+1. Never edit a shipped step: append a new one. */
export const MIGRATIONS: readonly ((db: Db) => void)[] = [
  (db) => {
    db.exec(`
      CREATE TABLE runs (
        path            TEXT PRIMARY KEY,
        first_seen      INTEGER NOT NULL,
        last_seen       INTEGER NOT NULL,
        last_opened     INTEGER,
        last_event_at   INTEGER,
        file_written_at INTEGER,
        view            TEXT
      );
      CREATE INDEX runs_recent ON runs(last_opened DESC) WHERE last_opened IS NOT NULL;

      CREATE TABLE settings (
        key        TEXT PRIMARY KEY,
        value      TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );

      -- value is REAL except NaN, stored as the text 'NaN' (SQLite turns a bound NaN into NULL).
      CREATE TABLE alerts (
        id              INTEGER PRIMARY KEY,
        run             TEXT NOT NULL,
        rule            TEXT NOT NULL,
        tag             TEXT,
        severity        TEXT NOT NULL,
        state           TEXT NOT NULL,
        step            REAL,
        value,
        message         TEXT NOT NULL,
        at              INTEGER NOT NULL,
        acknowledged_at INTEGER,
        snoozed_until   INTEGER
      );
      CREATE INDEX alerts_run_at ON alerts(run, at);
      CREATE INDEX alerts_at ON alerts(at);

      CREATE TABLE system_samples (
        t        INTEGER NOT NULL,
        snapshot TEXT NOT NULL
      );
      CREATE INDEX system_samples_t ON system_samples(t);
    `);
  },
  (db) => {
    // Alerts name their incident: a transition already stored (the same run replayed) is not stored again.
    db.exec(`
      ALTER TABLE alerts ADD COLUMN incident TEXT;
      ALTER TABLE alerts ADD COLUMN detail TEXT;
      CREATE UNIQUE INDEX alerts_incident ON alerts(run, incident, state, severity, step) WHERE incident IS NOT NULL;
    `);
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export type MigrationOutcome =
  | { kind: 'ok'; from: number; to: number }
  | { kind: 'newer'; found: number; known: number };

/** Re-reads user_version inside an IMMEDIATE transaction so two processes opening a fresh file at
 * once cannot both run step 0 (the loser waits on busy_timeout, then sees the new version). */
export function migrate(db: Db): MigrationOutcome {
  const version = () => db.pragma('user_version', { simple: true }) as number;
  const before = version();
  if (before > SCHEMA_VERSION) return { kind: 'newer', found: before, known: SCHEMA_VERSION };
  if (before === SCHEMA_VERSION) return { kind: 'ok', from: before, to: before };
  let outcome: MigrationOutcome = { kind: 'ok', from: before, to: SCHEMA_VERSION };
  db.transaction(() => {
    const v = version();
    if (v > SCHEMA_VERSION) {
      outcome = { kind: 'newer', found: v, known: SCHEMA_VERSION };
      return;
    }
    for (let i = v; i < SCHEMA_VERSION; i++) MIGRATIONS[i]!(db);
    // PRAGMA cannot take a bound parameter; SCHEMA_VERSION is our own integer.
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
  return outcome;
}
