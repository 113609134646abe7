// Backend over Electron IPC: the preload's window.rlwatch bridge, used as it is.

import type { RlwatchBridge } from '../../../shared/bridge';
import type { Backend } from './backend';

export function ipcBackend(bridge: RlwatchBridge): Backend {
  return {
    kind: 'ipc',
    invoke: (channel, args) => bridge.invoke(channel, args),
    on: (event, listener) => bridge.on(event, listener),
    onConnection: (listener) => {
      listener('connected');
      return () => {};
    },
  };
}
