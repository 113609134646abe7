// Registers every contract channel on ipcMain (validated by dispatch) and forwards push events to the window.

import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { ipcName, REQUEST_CHANNELS } from '../shared/channels';
import { fail } from '../shared/result';
import { dispatch } from '../core/api/dispatch';
import type { Handlers } from '../shared/contract';
import type { AppBus } from '../core/app/bus';
import { forwardToRenderer } from '../core/app/renderer-feed';

/** Only our own renderer's top frame may call in (VS Code checks the sender frame the same way). */
export type SenderCheck = (event: IpcMainInvokeEvent) => boolean;

export function registerContract(ipcMain: IpcMain, handlers: Handlers, isTrusted: SenderCheck): () => void {
  for (const channel of REQUEST_CHANNELS) {
    ipcMain.handle(ipcName(channel), (event, args: unknown) => {
      if (!isTrusted(event)) return fail('bad-request', 'request from an untrusted frame refused');
      return dispatch(handlers, channel, args);
    });
  }
  return () => REQUEST_CHANNELS.forEach((c) => ipcMain.removeHandler(ipcName(c)));
}

/** The same renderer feed as serve (big deltas become 'bulk' resets), sent to the window's contents. */
export function forwardPushEvents(bus: AppBus, target: () => WebContents | null): () => void {
  return forwardToRenderer(bus, ({ event, payload }) => {
    const contents = target();
    if (contents && !contents.isDestroyed()) contents.send(ipcName(event), payload);
  });
}
