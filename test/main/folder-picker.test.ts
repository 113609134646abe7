// "Open Folder…" from the menu or tray: a failed open is shown to the user, never an unhandled rejection.

import { describe, expect, test, vi } from 'vitest';
import { folderPickerAction } from '../../src/main/folder-picker';
import { ApiError, fail, ok } from '../../src/shared/result';

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('folderPickerAction', () => {
  test('a folder that cannot be opened (ApiError from core.open) is shown, and nothing rejects unhandled', async () => {
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const showError = vi.fn();
      const click = folderPickerAction(
        () => Promise.reject(new ApiError('io', 'cannot open /x: not a folder')),
        showError,
      );
      click();
      await settle();
      expect(unhandled).not.toHaveBeenCalled();
      expect(showError).toHaveBeenCalledExactlyOnceWith('cannot open /x: not a folder');
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  test('a failed request answer is shown with its message', async () => {
    const showError = vi.fn();
    folderPickerAction(() => Promise.resolve(fail('io', 'cannot open /y: permission denied')), showError)();
    await settle();
    expect(showError).toHaveBeenCalledExactlyOnceWith('cannot open /y: permission denied');
  });

  test('an opened folder or a cancelled picker shows nothing', async () => {
    const showError = vi.fn();
    folderPickerAction(() => Promise.resolve(ok({ root: '/runs' })), showError)();
    folderPickerAction(() => Promise.resolve(ok(null)), showError)();
    await settle();
    expect(showError).not.toHaveBeenCalled();
  });
});
