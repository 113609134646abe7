// Backend over the serve WebSocket: request ids, push events, reconnect with the links' one backoff schedule.

import { isPushEvent, type PushEvent, type RequestChannel } from '../../../shared/channels';
import type { RendererPushPayloads, RequestArgs, RequestResults } from '../../../shared/contract';
import { backoffDelay } from '../../../shared/backoff';
import type { Result } from '../../../shared/result';
import { decodeWire } from '../../../shared/wire-codec';
import type { Backend } from './backend';

type Pending = (result: Result<unknown>) => void;

export function wsBackend(pageUrl: URL): Backend {
  const token = pageUrl.searchParams.get('token') ?? '';
  const wsUrl = `${pageUrl.protocol === 'https:' ? 'wss' : 'ws'}://${pageUrl.host}/ws?token=${encodeURIComponent(token)}`;
  const pending = new Map<number, Pending>();
  const listeners = new Map<PushEvent, Set<(p: never) => void>>();
  const connListeners = new Set<(s: 'connected' | 'reconnecting') => void>();
  const queue: string[] = [];
  let nextId = 1;
  let socket: WebSocket | null = null;
  /** Failed attempts since the last open: the shared schedule's attempt number. */
  let attempt = 0;

  const connect = (): void => {
    const ws = new WebSocket(wsUrl);
    socket = ws;
    ws.onopen = () => {
      attempt = 0;
      connListeners.forEach((l) => l('connected'));
      while (queue.length > 0 && ws.readyState === WebSocket.OPEN) ws.send(queue.shift()!);
    };
    ws.onmessage = (ev) => onMessage(String(ev.data));
    ws.onclose = () => {
      socket = null;
      for (const [id, resolve] of pending) {
        resolve({ ok: false, error: { code: 'unavailable', message: 'connection to rlwatch lost' } });
        pending.delete(id);
      }
      connListeners.forEach((l) => l('reconnecting'));
      setTimeout(connect, backoffDelay(attempt++));
    };
  };

  const onMessage = (text: string): void => {
    let msg: { id?: unknown; result?: Result<unknown>; event?: unknown; payload?: unknown };
    try {
      msg = decodeWire(text) as typeof msg;
    } catch {
      return;
    }
    if (typeof msg.id === 'number' && msg.result) {
      pending.get(msg.id)?.(msg.result);
      pending.delete(msg.id);
    } else if (isPushEvent(msg.event)) {
      listeners.get(msg.event)?.forEach((l) => l(msg.payload as never));
    }
  };

  connect();

  return {
    kind: 'websocket',
    invoke<C extends RequestChannel>(channel: C, args: RequestArgs[C]): Promise<Result<RequestResults[C]>> {
      const id = nextId++;
      const text = JSON.stringify({ id, channel, args });
      return new Promise((resolve) => {
        pending.set(id, resolve as Pending);
        if (socket && socket.readyState === WebSocket.OPEN) socket.send(text);
        else queue.push(text);
      });
    },
    on<E extends PushEvent>(event: E, listener: (payload: RendererPushPayloads[E]) => void): () => void {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener as (p: never) => void);
      return () => set.delete(listener as (p: never) => void);
    },
    onConnection(listener) {
      connListeners.add(listener);
      return () => connListeners.delete(listener);
    },
  };
}
