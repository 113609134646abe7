// The menu's and tray's "Open Folder…": runs the picker request and shows a failure; nothing is left unhandled.

import type { Result } from '../shared/result';

/**
 * A click handler for the folder picker. `pick` answers the request's Result (dispatch never throws), but a
 * rejection is caught too: an `ApiError` from `core.open` must reach the user, not the process's
 * unhandled-rejection path.
 */
export function folderPickerAction(
  pick: () => Promise<Result<unknown>>,
  showError: (message: string) => void,
): () => void {
  return () => {
    pick().then(
      (answer) => {
        if (!answer.ok) showError(answer.error.message);
      },
      (err: unknown) => showError(err instanceof Error ? err.message : String(err)),
    );
  };
}
