// Chooses the transport: the preload's bridge when running in Electron, the WebSocket in a browser.

import type { RlwatchBridge } from '../../../shared/bridge';
import type { Backend } from './backend';
import { ipcBackend } from './ipc-backend';
import { wsBackend } from './ws-backend';

declare global {
  interface Window {
    rlwatch?: RlwatchBridge;
  }
}

export function pickBackend(): Backend {
  return window.rlwatch ? ipcBackend(window.rlwatch) : wsBackend(new URL(window.location.href));
}
