// A file's first bytes kept as a fingerprint: tells a re-created file from a truncated one where dev:inode:birth time cannot.

import { nodeFileIO } from '../readers/file-io';

/** Bytes kept per source: a CSV header or an event file's first record differ between two files. */
export const HEAD_BYTES = 64;

/** The first HEAD_BYTES bytes of `path` (fewer for a shorter file); null when it cannot be read. */
export async function readFileHead(path: string): Promise<Uint8Array | null> {
  try {
    return await nodeFileIO.read(path, 0, HEAD_BYTES);
  } catch {
    return null;
  }
}

/** Whether two heads disagree on the bytes both hold (a file cut short keeps its start: not different). */
export function headsDiffer(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (!a || !b) return false;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return true;
  return false;
}
