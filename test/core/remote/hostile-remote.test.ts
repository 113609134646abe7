// A remote that sends garbage, huge frames or never answers costs the local app nothing: typed errors, bounded waits.

import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppCore } from '../../../src/core/app/app-core';
import { createHandlers } from '../../../src/core/app/handlers';
import { dispatch } from '../../../src/core/api/dispatch';
import { openStore } from '../../../src/core/store';
import { encodeWire } from '../../../src/shared/wire-codec';
import { waitFor } from '../../helpers/wait-for';

/** A fake endpoint: records each connection's Origin and Host, and lets the test decide what it sends. */
async function fakeEndpoint(onConnection: (ws: WebSocket) => void): Promise<{
  port: number;
  connections: { origin: string | undefined; host: string | undefined }[];
  close(): Promise<void>;
}> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((r) => wss.once('listening', r));
  const connections: { origin: string | undefined; host: string | undefined }[] = [];
  wss.on('connection', (ws, req) => {
    connections.push({ origin: req.headers.origin, host: req.headers.host });
    onConnection(ws);
  });
  return {
    port: (wss.address() as AddressInfo).port,
    connections,
    close: () =>
      new Promise((r) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => r());
      }),
  };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

function appWith(url: string, limits: Record<string, number>): AppCore {
  const app = new AppCore({
    host: { mode: 'serve', version: 't', allowOpenFolder: false },
    store: openStore({ path: null }),
    remotes: [url],
    remoteTuning: { backoff: { baseMs: 20, maxMs: 100 }, limits },
  });
  closers.push(() => app.dispose());
  return app;
}

const RUN = {
  run: 'r',
  sources: [],
  tags: ['t'],
  points: 0,
  lastEventAt: null,
  fileWrittenAt: null,
  progress: null,
  loaded: true,
  restarts: 0,
  worstAlert: null,
  stalled: false,
};

describe('a hostile remote endpoint', () => {
  test('sends the Origin serve expects; garbage and malformed pushes are counted and dropped', async () => {
    const fake = await fakeEndpoint((ws) => {
      ws.on('message', (data) => {
        const { id, channel } = JSON.parse(data.toString()) as { id: number; channel: string };
        const value = channel === 'runs.list' ? [RUN] : [];
        ws.send(encodeWire({ id, result: { ok: true, value } }));
        ws.send('not json {');
        ws.send(Buffer.from([1, 2, 3]), { binary: true });
        ws.send(JSON.stringify({ event: 'runs.changed', payload: [{ run: 5 }] }));
        ws.send(
          JSON.stringify({ event: 'series.appended', payload: { run: 'r', tag: 't', from: 0, steps: [1] } }),
        );
        ws.send(JSON.stringify({ id: 99999, result: 'whatever' }));
      });
    });
    closers.push(fake.close);
    const app = appWith(`http://127.0.0.1:${fake.port}/?token=tok`, {});
    await waitFor(() => app.runs().length === 1, 'the fake run');
    expect(fake.connections[0]).toEqual({
      origin: `http://127.0.0.1:${fake.port}`,
      host: `127.0.0.1:${fake.port}`,
    });
    // The malformed run list did not replace the good one.
    await new Promise((r) => setTimeout(r, 100));
    expect(app.runs().map((r) => r.run)).toEqual([`127.0.0.1:${fake.port}//r`]);
    // Per answer: the text, the binary frame, the bad run list and the bad delta (two answers: runs, alerts).
    expect(app.remotes.list()[0]!.dropped).toBe(8);
  });

  test('a remote that never answers: requests fail as unavailable after the timeout; the app keeps answering', async () => {
    const fake = await fakeEndpoint(() => {});
    closers.push(fake.close);
    const app = appWith(`http://127.0.0.1:${fake.port}/?token=tok`, { requestTimeoutMs: 150, maxPending: 4 });
    const h = createHandlers(app);
    await waitFor(() => app.remotes.list()[0]?.state === 'connected', 'connected');
    // The link's own refresh (runs.list, alerts.list) times out first, and says so.
    await waitFor(() => /refresh failed/.test(app.remotes.list()[0]?.error ?? ''), 'the refresh timed out');
    const key = `127.0.0.1:${fake.port}//r`;
    const asks = Array.from({ length: 6 }, () => dispatch(h, 'runs.details', { run: key }));
    const answers = await Promise.all(asks);
    // Four wait for the timeout, the two past the bound fail at once: all typed, none thrown.
    expect(answers.every((a) => !a.ok && a.error.code === 'unavailable')).toBe(true);
    expect(answers.filter((a) => !a.ok && /too many/.test(a.error.message))).toHaveLength(2);
    expect(await dispatch(h, 'settings.get', {})).toMatchObject({ ok: true });
  });

  test('a frame over the size limit drops the link, which reconnects with backoff', async () => {
    const fake = await fakeEndpoint((ws) => ws.send('x'.repeat(64 * 1024)));
    closers.push(fake.close);
    const app = appWith(`http://127.0.0.1:${fake.port}/?token=tok`, { maxMessageBytes: 1024 });
    // The link is dropped after each connection and waits out its backoff disconnected (the state after the
    // third connection may still be 'connecting' or 'connected' for a moment: wait for the drop).
    await waitFor(
      () => fake.connections.length >= 3 && app.remotes.list()[0]?.state === 'disconnected',
      'reconnections',
    );
    expect(app.remotes.list()[0]).toMatchObject({
      state: 'disconnected',
      error: expect.stringMatching(/size|1009|Max payload/i),
    });
  });
});
