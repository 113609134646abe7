// The one way a run's small side files are read (MLflow meta.yaml, params and tags, W&B config, summary and tables): never through a link out of the run's folder.

import { sep } from 'node:path';
import { ioError, readWholeFile } from './file-cursor';
import { nodeFileIO, type FileIO } from './file-io';
import type { ReadError } from './types';

/** A side file's read error; `outside`: the path links out of its run folder, so it was not read (and never will be). */
export type SideFileError = ReadError & { outside?: true };

/**
 * `readWholeFile` of a side file of the run in `runDir`, but only when the file's real path (every link resolved)
 * is inside the run folder's real path: a link pointing elsewhere (`tags/mlflow.runName` → /etc/passwd) is refused
 * with an `io` error that names the path and quotes nothing of the target. Links within the run folder are read. The
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
  let folder: string;
  try {
    [real, folder] = await Promise.all([io.realpath(path), io.realpath(runDir)]);
  } catch (e) {
    return ioError(e);
  }
  if (!real.startsWith(folder.endsWith(sep) ? folder : folder + sep))
    return { kind: 'io', offset: 0, message: `${path} links out of its run folder: not read`, outside: true };
  return readWholeFile(real, maxBytes, io);
}
