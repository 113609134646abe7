// The folder the app's exports go to: given by the window, else the remembered one, else picked; checked before use.

import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { ApiError } from '../../shared/result';

/**
 * The export folder to use: `given`, else the remembered one, else the host's picker (desktop). It must be an
 * absolute path to an existing folder: a request never creates folders anywhere but inside it.
 */
export async function resolveExportFolder(
  given: string | undefined,
  remembered: string | null,
  pick: ((startAt: string | null) => Promise<string | null>) | undefined,
): Promise<string> {
  const folder = given ?? remembered ?? (pick ? await pick(remembered) : null);
  if (folder === null)
    throw new ApiError(
      'bad-request',
      given === undefined && pick ? 'no folder was chosen' : 'give a folder to export to',
    );
  if (!isAbsolute(folder)) throw new ApiError('bad-request', `${folder} is not an absolute path`);
  const st = await stat(folder).catch(() => null);
  if (!st?.isDirectory()) throw new ApiError('bad-request', `${folder} is not an existing folder`);
  return folder;
}
