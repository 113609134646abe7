// Writes a file so that no half-written file ever has its final name: a temp file beside it, then rename.

import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export class ExportWriteError extends Error {
  constructor(
    readonly path: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ExportWriteError';
  }
}

const REASONS: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOENT: 'the folder does not exist',
  ENOTDIR: 'a part of the path is not a folder',
};

/** Streams `chunks` into `path` atomically; on any failure the temp file is removed and the error names the file. */
export async function writeAtomically(path: string, chunks: Iterable<string | Uint8Array>): Promise<number> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  let bytes = 0;
  try {
    const fh = await open(temp, 'wx');
    try {
      for (const c of chunks) {
        const buf = typeof c === 'string' ? Buffer.from(c) : c;
        await fh.write(buf);
        bytes += buf.length;
      }
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(temp, path);
    return bytes;
  } catch (err) {
    await rm(temp, { force: true }).catch(() => {});
    const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
    throw new ExportWriteError(path, code, `cannot write ${path}: ${REASONS[code] ?? code}`);
  }
}
