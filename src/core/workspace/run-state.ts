// A run as the workspace holds it: its source entries (each live or dead), its live views and its own config.

import type { RunEnd } from '../../shared/domain';
import type { SourceFormatName } from '../../shared/formats';
import { bySourceName } from '../discovery';
import type { RunConfig } from '../readers/run-config';
import type { ProgressInfo, ReadError } from '../readers/types';
import type { LiveView } from '../series/live-view';
import type { SeriesSet } from '../series/series-set';
import type { LiveSource } from '../sources/live-source';

interface EntryBase {
  path: string;
  /** A database holding many runs (trackio, mlflow.db): the id there of the run this source reads. */
  member?: string;
  name: string;
  format: SourceFormatName;
  /** Orders a file replaced at the same path after the old one. */
  gen: number;
  /** The series set last seen (a reader starting over makes a new one). */
  set: SeriesSet;
  /** dev:ino:birth time when last read, to tell a replaced file from a truncated one; null before the first read. */
  identity: string | null;
  /** File size when found (load progress). */
  size: number;
  /** mtime when last read: a dead source's file found under another name is recognised by dev:ino and
   * an unchanged mtime (a new file reusing a deleted file's inode has a newer one). */
  mtimeMs: number | null;
}

/** A source still read as its file grows. */
export interface LiveEntry extends EntryBase {
  state: 'live';
  live: LiveSource;
  /** The read requested and not yet started: later requests join it. */
  queued: Promise<void> | null;
  /** The file's first bytes as last read (append formats): a different start means another file. */
  head: Uint8Array | null;
  /** The watcher reported the path deleted since the last read: a file there now is another file. */
  unlinkSeen: boolean;
  /** A checkpoint's trainer_state.json read for the run beside it: it moves to the newest checkpoint
   * (rediscovery decides), and dies only when discovery lists no snapshot of it and its file is gone. */
  snapshot: boolean;
  /** The file's stamp (fileStampSync) taken just before the last read started on a local disk: the sweep finds the
   * same stamp and opens nothing (the read that followed it read all of it). */
  stamp?: string | null;
}

/** A source whose file is gone (deleted or rotated away) or whose earlier contents were rewritten shorter (a
 * restarted trainer truncating its log): its series stay in the views, frozen. */
export interface DeadEntry extends EntryBase {
  state: 'dead';
  /** Earlier contents of the live file at the same path, truncated by its writer: an earlier session, unless
   * the new contents turn out to repeat them (a logger rewriting its whole file), then it is dropped. */
  rewritten?: 'pending' | 'kept';
  /** Records, errors and config when it died. */
  records: number;
  errors: readonly ReadError[];
  config: RunConfig | null;
}

export type SourceEntry = LiveEntry | DeadEntry;

export interface RunState {
  run: string;
  dir: string;
  entries: SourceEntry[];
  /** Live views by shown tag: a tag's own name, or `tag (label)` for another writer of it (series/writers.ts). */
  views: Map<string, LiveView>;
  /** Source tags written by several writers at once → the shown tags of their views (to drop stale ones). */
  writerTags: Map<string, string[]>;
  fileWrittenAt: number | null;
  /** How the run ended (W&B exit record, or a cut-off log that stopped growing); null while unknown. */
  ended: RunEnd | null;
  /** A W&B log that ends mid-record and stopped growing: where its complete records end. Shown as a
   * `truncated` read error on that source, as inspect reports it once the file is read to its end. */
  cutTail: { path: string; offset: number } | null;
  /** The cut tail as last seen (file size, complete bytes) and since when it has not changed. */
  cutSeen: { path: string; offset: number; size: number; since: number } | null;
  /** The run's own config.json, read when first seen. */
  config: RunConfig | null;
  loaded: boolean;
  /** Reads and view updates of one run run one at a time, in order. */
  chain: Promise<void>;
  gens: number;
  /** Bumped when what its RunInfo shows may have moved (after each read job, before a paced runs.changed): the
   * run-info cache builds it again then. */
  revision: number;
}

export function newRunState(run: string, dir: string, config: RunConfig | null): RunState {
  return {
    run,
    dir,
    entries: [],
    views: new Map(),
    writerTags: new Map(),
    fileWrittenAt: null,
    ended: null,
    cutTail: null,
    cutSeen: null,
    config,
    loaded: false,
    chain: Promise.resolve(),
    gens: 0,
    revision: 0,
  };
}

/** The dead twin of a live entry, with what it held at its death (`fields` overrides: a rotated file's
 * old series and counts). */
export function deadEntry(
  entry: LiveEntry,
  fields: Pick<DeadEntry, 'records' | 'errors' | 'config' | 'set'>,
): DeadEntry {
  const { path, name, format, gen, identity, size, mtimeMs } = entry;
  return {
    state: 'dead',
    path,
    ...(entry.member === undefined ? {} : { member: entry.member }),
    name,
    format,
    gen,
    identity,
    size,
    mtimeMs,
    ...fields,
  };
}

/** What identifies a live source: its path, and for a run of a database holding many, that run's id there. */
export function sourceKey(s: { path: string; member?: string }): string {
  return s.member === undefined ? s.path : `${s.path}\0${s.member}`;
}

/** The database a path belongs to: itself, or the database whose companion file it is (`-wal`, `-shm`, `-journal`:
 * a trackio or MLflow writer in WAL mode writes the `-wal` file, not the database). */
export function databaseOf(path: string): string {
  return path.replace(/-(wal|shm|journal)$/, '');
}

export function recordsOf(e: SourceEntry): number {
  return e.state === 'live' ? e.live.records : e.records;
}

export function errorsOf(e: SourceEntry): readonly ReadError[] {
  return e.state === 'live' ? e.live.errors : e.errors;
}

export function sourceConfig(e: SourceEntry): RunConfig | null {
  return e.state === 'live' ? e.live.config : e.config;
}

export function sourceProgress(e: SourceEntry): ProgressInfo | null {
  return e.state === 'live' ? e.live.progress : null;
}

/** File name order (a dump's files by step: bySourceName); a file replaced at the same path after the old one. */
export function sortEntries(entries: SourceEntry[]): void {
  entries.sort((a, b) => bySourceName(a.name, b.name) || a.gen - b.gen);
}

export function byRunName(a: RunState, b: RunState): number {
  return a.run < b.run ? -1 : a.run > b.run ? 1 : 0;
}
