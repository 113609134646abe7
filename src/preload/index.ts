// Preload (sandboxed, CommonJS): exposes exactly the contract's channels as window.rlwatch, nothing else.

import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { ipcName, isPushEvent, isRequestChannel } from '../shared/channels';
import type { RlwatchBridge } from '../shared/bridge';

const bridge: RlwatchBridge = {
  invoke(channel, args) {
    if (!isRequestChannel(channel)) {
      return Promise.resolve({
        ok: false,
        error: { code: 'unknown-channel', message: `unknown channel ${String(channel)}` },
      });
    }
    return ipcRenderer.invoke(ipcName(channel), args);
  },
  on(event, listener) {
    if (!isPushEvent(event)) throw new Error(`unknown event ${String(event)}`);
    // Never hand the renderer the IpcRendererEvent (it exposes `sender`); only the payload.
    const wrapped = (_e: IpcRendererEvent, payload: unknown): void => listener(payload as never);
    ipcRenderer.on(ipcName(event), wrapped);
    return () => void ipcRenderer.removeListener(ipcName(event), wrapped);
  },
};

contextBridge.exposeInMainWorld('rlwatch', bridge);
