// The folder the app's exports go to: given by the window, else the remembered one, else picked; checked before use.

import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { ApiError } from '../../shared/result';
import type { Store } from '../store';

/** Store key of the remembered export folder (the last one written to). */
export const EXPORT_FOLDER_KEY = 'exportFolder';

export function rememberedExportFolder(store: Store): string | null {
  const v = store.getSetting(EXPORT_FOLDER_KEY);
  return typeof v === 'string' && v !== '' ? v : null;
}

export function rememberExportFolder(store: Store, folder: string): void {
  if (rememberedExportFolder(store) !== folder) store.setSetting(EXPORT_FOLDER_KEY, folder);
}

/**
 * The export folder to use: `given`, else the remembered one, else the host's picker (desktop). It must be an
 * absolute path to an existing folder: a request never creates folders anywhere but inside it.
 */
export async function resolveExportFolder(
  store: Store,
  given: string | undefined,
  pick: (() => Promise<string | null>) | undefined,
): Promise<string> {
  const folder = given ?? rememberedExportFolder(store) ?? (pick ? await pick() : null);
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
