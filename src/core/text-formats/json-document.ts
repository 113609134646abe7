// Base for readers of whole JSON documents that are rewritten in place (history, trainer state, progress).

import { readWholeFile, fileKey, isReadError } from '../readers/file-cursor';
import { ReaderBase, type ReaderOptions } from '../readers/reader';
import type { ReadError } from '../readers/types';
import { decodeUtf8, parseJsonLenient } from '../readers/values';

/** Larger JSON documents are refused rather than parsed whole. */
export const MAX_JSON_BYTES = 512 * 1024 * 1024;

/** A broken document unchanged for this long is no longer being written: it stays broken. */
export const SETTLED_MS = 2000;

/**
 * Re-reads the document when its size, mtime or inode changed. Writers (json.dump, HF Trainer)
 * rewrite these files non-atomically, so a parse failure while following a run keeps the last
 * good content and retries; it is reported once the same broken file is seen again SETTLED_MS
 * after it was written, or by a final read (`truncated` when the text just stops).
 */
export abstract class JsonDocumentReader extends ReaderBase {
  private lastKey: string | null = null;
  private pendingError: ReadError | null = null;
  /** Modification time (ms) of the broken content `pendingError` describes. */
  private pendingMtimeMs = 0;

  private readonly maxBytes: number;
  private readonly now: () => number;

  constructor(path: string, options: ReaderOptions = {}) {
    super(path, options);
    this.maxBytes = options.maxJsonBytes ?? MAX_JSON_BYTES;
    this.now = options.now ?? Date.now;
  }

  protected async read(final: boolean): Promise<void> {
    const key = await fileKey(this.path, this.io);
    if (key !== null && key === this.lastKey) {
      if (this.pendingError && (final || this.now() - this.pendingMtimeMs >= SETTLED_MS))
        this.reportPending();
      return;
    }
    const got = await readWholeFile(this.path, this.maxBytes, this.io);
    if (isReadError(got)) {
      // A missing or huge file is an error whether or not the writer is done.
      this.pendingError = null;
      this.lastKey = null;
      return this.pushError(got);
    }
    this.lastKey = got.key;
    const parsed = parseJsonLenient(decodeUtf8(got.bytes));
    if (!parsed.ok) {
      this.pendingError = {
        kind: parsed.atEnd ? 'truncated' : 'decode',
        offset: parsed.offset,
        message: `JSON: ${parsed.message}`,
      };
      this.pendingMtimeMs = got.mtime * 1000;
      if (final) this.reportPending();
      return;
    }
    this.pendingError = null;
    const failure = this.apply(parsed.value, got.mtime);
    if (failure !== null) this.error('decode', 0, failure);
  }

  /** The document now lives at `path`: read it from there next (a broken copy left behind, or its
   * absence, is forgotten). */
  moveTo(path: string): void {
    this.relocate(path);
    this.lastKey = null;
    this.pendingError = null;
    this.errors = this.errors.filter((e) => e.kind !== 'io');
  }

  /** Takes a freshly parsed document; returns a message when it is not of this format. */
  protected abstract apply(doc: unknown, mtime: number): string | null;

  private reportPending(): void {
    if (this.pendingError) this.pushError(this.pendingError);
    this.pendingError = null;
  }
}

/**
 * Emits the entries of an array that grew since the last parse. A shorter array means the file
 * was rewritten by a new run: the caller starts over.
 */
export class ArrayTail {
  private seen = 0;

  /** Returns the new entries, or null when the array shrank (a restart). */
  fresh<T>(entries: readonly T[]): readonly T[] | null {
    if (entries.length < this.seen) {
      this.seen = 0;
      return null;
    }
    const out = entries.slice(this.seen);
    this.seen = entries.length;
    return out;
  }

  reset(): void {
    this.seen = 0;
  }
}
