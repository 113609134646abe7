// Test helpers: an in-memory file system for readers, and a comparable snapshot of a read result.

import type { FileIO } from '../../../src/core/readers/file-io';
import type { SourceReadResult } from '../../../src/core/readers/types';

interface MemFile {
  bytes: Uint8Array;
  mtime: number;
  identity: string;
}

/** Files held in memory; `set` replaces content (same identity unless `replace`). */
export class MemoryFS implements FileIO {
  private files = new Map<string, MemFile>();
  private nextId = 1;

  set(path: string, content: Uint8Array | string, mtime = 1_700_000_000, replace = false): void {
    const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
    const old = this.files.get(path);
    this.files.set(path, { bytes, mtime, identity: old && !replace ? old.identity : String(this.nextId++) });
  }

  delete(path: string): void {
    this.files.delete(path);
  }

  async stat(path: string) {
    const f = this.files.get(path);
    if (!f) throw Object.assign(new Error(`ENOENT: no such file, stat '${path}'`), { code: 'ENOENT' });
    return { size: f.bytes.length, mtime: f.mtime, identity: f.identity, isFile: true };
  }

  async read(path: string, offset: number, length: number) {
    const f = this.files.get(path);
    if (!f) throw Object.assign(new Error(`ENOENT: no such file, open '${path}'`), { code: 'ENOENT' });
    return f.bytes.slice(offset, offset + length);
  }
}

export interface SeriesSnapshot {
  steps: number[];
  values: number[];
}

/** Tags → steps and values (NaN-safe under toEqual), plus records and error kinds. */
export function snapshot(r: SourceReadResult): {
  records: number;
  errors: string[];
  tags: Record<string, SeriesSnapshot>;
} {
  const tags: Record<string, SeriesSnapshot> = {};
  for (const tag of r.series.tags()) {
    const s = r.series.get(tag);
    tags[tag] = { steps: [...s.steps()], values: [...s.values()] };
  }
  return { records: r.records, errors: r.errors.map((e) => `${e.kind}@${e.offset}`), tags };
}

export function fixture(rel: string): string {
  return new URL(`../../fixtures/${rel}`, import.meta.url).pathname;
}
