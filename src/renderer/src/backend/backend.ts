// The renderer's only door to the core: one interface, two transports (Electron IPC, serve WebSocket).

import type { RlwatchBridge } from '../../../shared/bridge';

export type Backend = RlwatchBridge & {
  /** Which transport this is, for the status line. */
  readonly kind: 'ipc' | 'websocket';
  /** Connection state changes (the WebSocket can drop and reconnect; IPC is always up). */
  onConnection(listener: (state: 'connected' | 'reconnecting') => void): () => void;
};
