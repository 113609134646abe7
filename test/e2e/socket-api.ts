// Test helper: the contract over serve's WebSocket, as the renderer uses it (Origin = the server, token from the URL).

import { expect } from 'vitest';
import { WebSocket } from 'ws';
import { decodeWire } from '../../src/shared/wire-codec';

export interface SocketApi {
  ask<T>(channel: string, args: unknown): Promise<{ ok: boolean; value: T }>;
  close(): void;
}

/** Opens a socket to the serve that printed `pageUrl`; resolves once it is open. */
export async function apiOf(pageUrl: string): Promise<SocketApi> {
  const u = new URL(pageUrl);
  const ws = new WebSocket(`ws://${u.host}/ws?token=${u.searchParams.get('token')}`, { origin: u.origin });
  await new Promise((res, rej) => {
    ws.once('open', res);
    ws.once('error', rej);
  });
  let nextId = 1;
  const waiting = new Map<number, (r: unknown) => void>();
  ws.on('message', (data) => {
    const m = decodeWire(data.toString()) as { id?: number; result?: unknown };
    if (typeof m.id === 'number') {
      waiting.get(m.id)?.(m.result);
      waiting.delete(m.id);
    }
  });
  return {
    ask: (channel, args) =>
      new Promise((res) => {
        const id = nextId++;
        waiting.set(id, res as (r: unknown) => void);
        ws.send(JSON.stringify({ id, channel, args }));
      }),
    close: () => ws.close(),
  };
}

/** Waits until the serve behind `pageUrl` holds `want`'s settings (the window saves a change after a short pause), so
 * a reload that follows reads them back rather than the ones before. */
export async function settingsSaved(pageUrl: string, want: Record<string, unknown>): Promise<void> {
  const api = await apiOf(pageUrl);
  try {
    await expect
      .poll(async () => {
        const r = await api.ask<Record<string, unknown>>('settings.get', {});
        return r.ok ? Object.fromEntries(Object.keys(want).map((k) => [k, r.value[k]])) : 'not ok';
      })
      .toEqual(want);
  } finally {
    api.close();
  }
}
