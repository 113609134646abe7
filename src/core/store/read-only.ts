// Reads one setting from the app's database without changing it: no WAL switch, no migration, no repair.

import type Database from 'better-sqlite3';
import { CALL_BUSY_TIMEOUT_MS, defaultLoader, type SqliteLoader } from './open';
import { SCHEMA_VERSION } from './schema';
import type { JsonValue } from './types';

/**
 * The stored value of `key`, or undefined when the file is missing, unreadable, of another schema
 * version or corrupt. For a process that must never write the database (`rlwatch watch`): it opens the
 * file read-only, so it cannot migrate it, switch its journal mode or move a damaged file aside.
 */
export function readSettingReadOnly(
  path: string,
  key: string,
  loader: SqliteLoader = defaultLoader,
): JsonValue | undefined {
  let db: Database.Database;
  try {
    const Ctor = loader();
    db = new Ctor(path, { readonly: true, fileMustExist: true, timeout: CALL_BUSY_TIMEOUT_MS });
  } catch {
    return undefined;
  }
  try {
    if (db.pragma('user_version', { simple: true }) !== SCHEMA_VERSION) return undefined;
    const row = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?').get(key);
    return row ? (JSON.parse(row.value) as JsonValue) : undefined;
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}
