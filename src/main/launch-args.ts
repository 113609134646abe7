// The folder a launch of the desktop app names on its command line, absolute against where it was launched.

import { resolve } from 'node:path';

/**
 * The last argument that is not a flag (after the executable, and the app path when unpackaged), resolved
 * against `workingDirectory`: a second instance hands over its own argv and cwd, not the running app's.
 */
export function folderFromArgv(
  argv: string[],
  packaged: boolean,
  workingDirectory: string,
): string | undefined {
  const folder = argv
    .slice(packaged ? 1 : 2)
    .filter((a) => !a.startsWith('-'))
    .at(-1);
  return folder === undefined ? undefined : resolve(workingDirectory, folder);
}
