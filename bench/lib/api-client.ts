// Benchmarks' WebSocket client of `rlwatch serve`: requests with their latency, and the alert changes it pushes.

import { WebSocket } from 'ws';
import type { AlertChange } from '../../src/shared/domain';
import { decodeWire } from '../../src/shared/wire-codec';

/** A socket as the page opens it (token in the URL, Origin = this server), with request timing. */
export async function apiClient(pageUrl: string): Promise<{
  request(channel: string, args: unknown): Promise<{ ms: number; ok: boolean; value?: unknown }>;
  onAlert(fn: (c: AlertChange) => void): void;
  close(): void;
}> {
  const u = new URL(pageUrl);
  const ws = new WebSocket(`ws://${u.host}/ws${u.search}`, { headers: { Origin: u.origin } });
  await new Promise<void>((res, rej) => {
    ws.once('open', () => res());
    ws.once('error', rej);
  });
  const pending = new Map<number, (result: { ok: boolean; value?: unknown }) => void>();
  const alertListeners: ((c: AlertChange) => void)[] = [];
  let nextId = 1;
  ws.on('message', (data: Buffer) => {
    const m = decodeWire(data.toString()) as {
      id?: number;
      result?: { ok: boolean; value?: unknown };
      event?: string;
      payload?: unknown;
    };
    if (m.id !== undefined && m.result) {
      pending.get(m.id)?.(m.result);
      pending.delete(m.id);
    } else if (m.event === 'alerts.changed') alertListeners.forEach((fn) => fn(m.payload as AlertChange));
  });
  return {
    request(channel, args) {
      const id = nextId++;
      const t0 = performance.now();
      return new Promise((res) => {
        pending.set(id, (r) => res({ ms: performance.now() - t0, ...r }));
        ws.send(JSON.stringify({ id, channel, args }));
      });
    },
    onAlert: (fn) => alertListeners.push(fn),
    close: () => ws.close(),
  };
}
