// Incremental reader of a W&B run: the .wandb log plus files/config.yaml, files/wandb-summary.json and the table files history refers to.

import { dirname, isAbsolute, join } from 'node:path';
import type { SourceFormatName } from '../../shared/formats';
import { SampleStore } from '../samples/sample-store';
import { addTableJson, TABLE_FILE_BYTES } from '../samples/table-json';
import { AppendedBytesReader } from '../readers/appended-reader';
import { fileKey, isReadError } from '../readers/file-cursor';
import { readSideFile } from '../readers/side-file';
import { isPlainObject, numericLeaves, wallSeconds } from '../readers/rows';
import { decodeUtf8, jsonNumber, parseJsonLenient } from '../readers/values';
import { MAX_CONFIG_YAML_BYTES, parseWandbConfigYaml } from './config-yaml';
import { LevelDbLogReader } from './leveldb-log';
import { decodeRecord, type Item, type WandbRecord } from './records';
import { binnedHistogramBuckets } from '../readers/histogram-buckets';
import { HistogramStore } from '../readers/histogram-store';
import type { SourceReadResult } from '../readers/types';

/** History keys that are axes or W&B bookkeeping, not metrics. */
const HISTORY_SKIP = new Set(['_step', '_timestamp', '_runtime', '_wandb']);
const NO_SKIP = new Set<string>();
const SIDE_FILE_LIMIT = 16 << 20;

/**
 * Tags: history keys as written (nested keys joined with '/'); `_step` is the step (else the
 * record's step number), `_timestamp` (else run start + `_runtime`) the wall time. System stats
 * are `system/<key>`, numbered by sample since they carry no training step. Summary and config
 * come from the records, over the values of the side files written by the SDK.
 */
export class WandbReader extends AppendedBytesReader {
  readonly format: SourceFormatName = 'wandb';
  private log = new LevelDbLogReader();
  private runStart: number | null = null;
  private lastStep = -1;
  private statsSamples = 0;
  private runFields: Record<string, unknown> | null = null;
  private recordConfig: Record<string, unknown> = {};
  private recordSummary: Record<string, unknown> = {};
  private fileConfig: Record<string, unknown> = {};
  private fileSummary: Record<string, unknown> = {};
  private sideKeys = new Map<string, string | null>();
  /** Tables logged to history (`{"_type": "table-file", "path": …}`), read into `samples` once their file is whole;
   * their number columns' per-step means charted in `series` (SampleMeans). */
  private samples = new SampleStore(undefined, () => this.series);
  private pendingTables: PendingTable[] = [];
  private writerDone = false;
  /** History values of `_type: 'histogram'` (wandb.Histogram), with their bins. */
  private histos = new HistogramStore();
  /** Bytes of complete records: short of the file size while its tail is cut mid-record. */
  override bytesRead: number | null = 0;

  protected chunk(bytes: Uint8Array, start: number): void {
    for (const ev of this.log.push(bytes, start)) {
      if (ev.kind === 'error') this.pushError(ev.error);
      else this.record(ev.data, ev.offset);
    }
  }

  protected finish(): void {
    this.writerDone = true;
    const cut = this.log.finish();
    if (cut) this.pushError(cut);
  }

  protected override async afterRead(): Promise<void> {
    this.bytesRead = this.log.consumedBytes();
    await this.readSideFiles();
    await this.readTables();
    // A table file is a whole step: its means chart at once.
    this.samples.closeSteps();
    this.publish();
  }

  protected override restart(): void {
    super.restart();
    this.log = new LevelDbLogReader();
    this.runStart = null;
    this.lastStep = -1;
    this.statsSamples = 0;
    this.runFields = null;
    this.recordConfig = {};
    this.recordSummary = {};
    this.samples = new SampleStore(undefined, () => this.series);
    this.pendingTables = [];
    this.histos = new HistogramStore();
  }

  override result(): SourceReadResult {
    return { ...super.result(), histogramSteps: this.histos, samples: this.samples };
  }

  private record(data: Uint8Array, offset: number): void {
    const decoded = decodeRecord(data);
    if (!decoded.ok) {
      this.error('decode', offset, `W&B record: ${decoded.message}`);
      return;
    }
    this.countRecords(1);
    this.apply(decoded.record);
  }

  private apply(rec: WandbRecord): void {
    switch (rec.type) {
      case 'history':
        return this.history(rec.items, rec.step);
      case 'stats': {
        const wall = rec.timestamp ?? Number.NaN;
        const step = this.statsSamples++;
        for (const it of rec.items) {
          const v = value(it);
          const n = jsonNumber(v);
          if (n !== undefined) this.series.add(`system/${it.key}`, step, wall, n);
        }
        return;
      }
      case 'summary':
        return merge(this.recordSummary, rec.update, rec.remove);
      case 'config':
        return merge(this.recordConfig, rec.update, rec.remove);
      case 'run': {
        const r = rec.run;
        this.runStart = r.startTime;
        merge(this.recordConfig, r.config, []);
        this.runFields = {
          ...this.runFields,
          run_id: r.runId,
          entity: r.entity,
          project: r.project,
          display_name: r.displayName,
          start_time: r.startTime,
          starting_step: r.startingStep,
        };
        return;
      }
      case 'exit':
        this.runFields = { ...this.runFields, exit_code: rec.exitCode, runtime: rec.runtime, finished: true };
        return;
      case 'other':
        return;
    }
  }

  private history(items: Item[], recordStep: number | null): void {
    const values = new Map<string, unknown>();
    for (const it of items) values.set(it.key, value(it));
    const given = jsonNumber(values.get('_step'));
    const step = given !== undefined && Number.isFinite(given) ? given : (recordStep ?? this.lastStep + 1);
    let wall = wallSeconds(values.get('_timestamp'));
    if (wall === undefined) {
      const runtime = jsonNumber(values.get('_runtime'));
      wall =
        this.runStart !== null && runtime !== undefined && Number.isFinite(runtime)
          ? this.runStart + runtime
          : Number.NaN;
    }
    this.lastStep = step;
    for (const [key, v] of values) {
      if (HISTORY_SKIP.has(key)) continue;
      const n = jsonNumber(v);
      if (n !== undefined) this.series.add(key, step, wall, n);
      else if (isPlainObject(v) && v._type === 'table-file') this.tableRef(key, step, v);
      else if (isPlainObject(v) && v._type === 'histogram') {
        const buckets = binnedHistogramBuckets(v);
        if (buckets !== null) this.histos.add(key, step, wall, buckets);
      } else if (isPlainObject(v) && !('_type' in v))
        for (const [tag, x] of numericLeaves(v, NO_SKIP, `${key}/`)) this.series.add(tag, step, wall, x);
    }
  }

  private tableRef(key: string, step: number, ref: Record<string, unknown>): void {
    const path = ref.path;
    const rows = jsonNumber(ref.nrows) ?? 0;
    // The SDK writes `media/table/<key>_<step>_<hash>.table.json` under files/; nothing else is read.
    if (typeof path !== 'string' || isAbsolute(path) || path.split(/[\\/]/).includes('..')) {
      this.samples.drop(key, 'wandb', rows);
      return;
    }
    this.pendingTables.push({ key, step, path: join(dirname(this.path), 'files', path), rows });
  }

  /** Reads the table files history referred to; one not there yet waits for the next read (the writer's last: dropped). */
  private async readTables(): Promise<void> {
    const waiting: PendingTable[] = [];
    for (const t of this.pendingTables) {
      if (!this.writerDone && t.failedKey !== undefined && (await fileKey(t.path, this.io)) === t.failedKey) {
        waiting.push(t); // unchanged since it failed to parse
        continue;
      }
      const got = await readSideFile(t.path, dirname(this.path), TABLE_FILE_BYTES, this.io);
      if (isReadError(got)) {
        if (got.kind === 'too-large' || got.outside || this.writerDone) {
          this.samples.drop(t.key, 'wandb', t.rows);
          this.error(got.kind, 0, `W&B table ${t.key} at step ${t.step}: ${got.message}`);
        } else waiting.push(t);
        continue;
      }
      const added = addTableJson(this.samples, t.key, t.step, decodeUtf8(got.bytes));
      if (!added.ok) {
        if (this.writerDone) {
          this.samples.drop(t.key, 'wandb', t.rows);
          this.error('decode', 0, `W&B table ${t.key} at step ${t.step}: ${added.message}`);
        } else waiting.push({ ...t, failedKey: got.key }); // still being written
      }
    }
    this.pendingTables = waiting;
  }

  /** The SDK's side files, re-read only when they change; a half-written one keeps the last good parse. */
  private async readSideFiles(): Promise<void> {
    const files = join(dirname(this.path), 'files');
    const yaml = await this.changedText(join(files, 'config.yaml'), MAX_CONFIG_YAML_BYTES);
    if (yaml !== null) {
      const parsed = await parseWandbConfigYaml(yaml);
      if (parsed.ok) this.fileConfig = parsed.config;
      else this.error(parsed.kind, 0, parsed.message);
    }
    const summary = await this.changedText(join(files, 'wandb-summary.json'), SIDE_FILE_LIMIT);
    if (summary !== null) {
      const parsed = parseJsonLenient(summary);
      if (parsed.ok && isPlainObject(parsed.value)) this.fileSummary = parsed.value;
    }
  }

  /** The file's text when it changed since the last call; null when unchanged, absent or (reported) too large or
   * linked out of the run folder. */
  private async changedText(path: string, maxBytes: number): Promise<string | null> {
    const key = await fileKey(path, this.io);
    if (key === null || key === this.sideKeys.get(path)) return null;
    const got = await readSideFile(path, dirname(this.path), maxBytes, this.io);
    if (isReadError(got)) {
      if (got.kind === 'too-large' || got.outside) {
        this.sideKeys.set(path, key);
        this.error(got.kind, 0, `${path}: ${got.message}`);
      }
      return null;
    }
    this.sideKeys.set(path, key);
    return decodeUtf8(got.bytes);
  }

  private publish(): void {
    const config = overlay(this.fileConfig, this.recordConfig);
    const summary = overlay(this.fileSummary, this.recordSummary);
    this.config = Object.keys(config).length > 0 ? config : null;
    this.summary = Object.keys(summary).length > 0 ? summary : null;
    this.progress = this.runFields
      ? { fraction: null, etaSeconds: null, fields: { finished: false, ...this.runFields } }
      : null;
  }
}

interface PendingTable {
  key: string;
  step: number;
  path: string;
  /** Rows the reference announces (`nrows`), counted as dropped if the file cannot be read. */
  rows: number;
  /** The file's identity when it last failed to parse (re-read only once it changes). */
  failedKey?: string;
}

function value(it: Item): unknown {
  const parsed = parseJsonLenient(it.valueJson);
  return parsed.ok ? parsed.value : undefined;
}

/** `top` over `base`; objects present in both (e.g. `_wandb`) are merged one level deep. */
function overlay(base: Record<string, unknown>, top: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [k, v] of Object.entries(top)) {
    const under = out[k];
    out[k] = isPlainObject(under) && isPlainObject(v) ? { ...under, ...v } : v;
  }
  return out;
}

function merge(target: Record<string, unknown>, update: Item[], remove: Item[]): void {
  for (const it of update) if (it.key !== '__proto__') target[it.key] = value(it);
  for (const it of remove) delete target[it.key];
}
