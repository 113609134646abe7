// One MLflow file-store run's meta.yaml, params/ and tags/: the run's config (params, MLflow name, tags) and status.

import { readdir } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import type { SourceFormatName } from '../../shared/formats';
import { fileKey, isReadError } from '../readers/file-cursor';
import { errorCode } from '../readers/file-io';
import { ReaderBase } from '../readers/reader';
import { readSideFile } from '../readers/side-file';
import { decodeUtf8 } from '../readers/values';
import { MAX_META_BYTES, mlflowRunState, parseRunMeta, type RunMeta } from './run-meta';

/** MLflow caps a param at 6000 characters and a tag at 8000. */
const MAX_VALUE_BYTES = 1 << 20;

/** What one params/ or tags/ file last held, and the file state it was read at. */
interface Entry {
  key: string;
  text: string;
}

/**
 * Reads the run folder's meta.yaml and, on every read, lists params/ and tags/ (keys with '/' are nested
 * folders) re-reading only the files that changed: params and tags are written beside the metrics while the
 * run goes on. Config and progress: `mlflowRunState` (meta.yaml's run_name is the run's name). Never writes.
 */
export class MlflowRunReader extends ReaderBase {
  readonly format: SourceFormatName = 'mlflow';
  private metaKey: string | null = null;
  private meta: RunMeta | null = null;
  private readonly params = new Map<string, Entry>();
  private readonly tags = new Map<string, Entry>();

  protected async read(): Promise<void> {
    const dir = dirname(this.path);
    await this.readMeta();
    await this.readFolder(join(dir, 'params'), this.params);
    await this.readFolder(join(dir, 'tags'), this.tags);
    this.publish();
  }

  private async readMeta(): Promise<void> {
    const key = await fileKey(this.path, this.io);
    if (key !== null && key === this.metaKey) return;
    const got = await readSideFile(this.path, dirname(this.path), MAX_META_BYTES, this.io);
    if (isReadError(got)) return this.pushError(got);
    this.metaKey = got.key;
    const parsed = parseRunMeta(decodeUtf8(got.bytes));
    // A meta.yaml rewritten in place (MLflow does at the run's end) can be read half-written: the last good
    // parse stays and the error is kept once.
    if (!parsed.ok) return this.error('decode', 0, parsed.message);
    this.meta = parsed.meta;
    this.countRecords(1);
  }

  /** Lists `folder` (absent: nothing yet) and re-reads its changed files into `into`; a link is read only where it
   * stays in the run folder (`readSideFile`). */
  private async readFolder(folder: string, into: Map<string, Entry>): Promise<void> {
    let names: string[];
    try {
      const found = await readdir(folder, { recursive: true, withFileTypes: true });
      names = found
        .filter((e) => e.isFile() || e.isSymbolicLink())
        .map((e) => join(e.parentPath ?? e.path, e.name).slice(folder.length + 1));
    } catch (e) {
      if (errorCode(e) !== 'ENOENT')
        this.error('io', 0, `${folder}: ${e instanceof Error ? e.message : String(e)}`);
      names = [];
    }
    const present = new Set(names);
    for (const k of [...into.keys()]) if (!present.has(k)) into.delete(k);
    for (const name of names.sort()) {
      const path = join(folder, name);
      const key = await fileKey(path, this.io);
      if (key === null || into.get(name)?.key === key) continue;
      const got = await readSideFile(path, dirname(this.path), MAX_VALUE_BYTES, this.io);
      if (isReadError(got)) {
        this.error(got.kind, 0, `${path}: ${got.message}`);
        continue;
      }
      into.set(name, { key: got.key, text: decodeUtf8(got.bytes) });
      this.countRecords(1);
    }
  }

  private publish(): void {
    const text = (from: Map<string, Entry>): Map<string, string> =>
      new Map([...from].map(([name, e]) => [keyOf(name), e.text]));
    const state = mlflowRunState(text(this.params), text(this.tags), this.meta);
    this.config = state.config;
    this.progress = state.progress;
  }
}

/** A params/ or tags/ file's key: its path in the folder, '/'-joined. */
function keyOf(name: string): string {
  return name.split(sep).join('/');
}
