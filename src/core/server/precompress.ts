// The build's step that writes each compressible renderer file's brotli and gzip copies beside it, for serve to send as they are.

import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compress, isCompressible, precompressedPath, type Coding } from './content-coding';

const CODINGS: readonly Coding[] = ['br', 'gzip'];

/**
 * Writes `<file>.br` and `<file>.gz` beside every compressible file under `dir` (the built renderer folder), at the
 * codings' best levels; returns the files it compressed. serve takes a copy only while it is no older than its file
 * (`static-files.ts`), so a file changed after the build is compressed on the fly again.
 */
export async function precompressFolder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && isCompressible(e.name))
    .map((e) => join(e.parentPath, e.name));
  await Promise.all(
    files.map(async (file) => {
      const body = await readFile(file);
      await Promise.all(
        CODINGS.map(async (c) => writeFile(precompressedPath(file, c), await compress(body, c, true))),
      );
    }),
  );
  return files;
}
