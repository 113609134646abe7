// The one way a run's small side files are read (MLflow meta.yaml, params and tags, W&B config, summary and tables): never through a link out of the run's folder.

import { sep } from 'node:path';
import { ioError, readWholeFile } from './file-cursor';
import { nodeFileIO, type FileIO } from './file-io';
import type { ReadError } from './types';

/** A side file's read error; `outside`: the path links out of its run folder, so it was not read (and never will be). */
export type SideFileError = ReadError & { outside?: true };

/** `path` lies below `folder` (both real paths): the test of the one rule for links. */
export function isBelow(folder: string, path: string): boolean {
  return path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/**
 * `readWholeFile` of a side file of the run in `runDir`, but only when the file's real path (every link resolved)
 * is inside the run folder's real path: a link pointing elsewhere (`tags/mlflow.runName` → /etc/passwd) is refused
 * with an `io` error that quotes nothing of the target (callers say which file). Links within the run folder are read. The
 * file is then read at its real path, so a link swapped after the check is not followed.
 */
export async function readSideFile(
  path: string,
  runDir: string,
  maxBytes: number,
  io: FileIO = nodeFileIO,
): Promise<{ bytes: Uint8Array; mtime: number; key: string } | SideFileError> {
  if (!io.realpath) return readWholeFile(path, maxBytes, io);
  let real: string;
  try {
    real = await io.realpath(path);
    // A path that is its own real path holds no link, so a folder it is under is real too: one call, not two.
    const inside = real === path ? isBelow(runDir, path) : isBelow(await io.realpath(runDir), real);
    if (!inside)
      return {
        kind: 'io',
        offset: 0,
        message: 'a link out of its run folder: not read',
        outside: true,
      };
  } catch (e) {
    return ioError(e);
  }
  return readWholeFile(real, maxBytes, io);
}
