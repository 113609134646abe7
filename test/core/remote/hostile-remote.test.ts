// A remote that sends garbage, huge frames or never answers costs the local app nothing: typed errors, bounded waits.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { AppCore } from '../../../src/core/app/app-core';
import { createHandlers } from '../../../src/core/app/handlers';
import { dispatch } from '../../../src/core/api/dispatch';
import type { LinkTuning } from '../../../src/core/remote/remote-endpoint';
import { startServer } from '../../../src/core/server/serve';
import { openStore } from '../../../src/core/store';
import { encodeWire } from '../../../src/shared/wire-codec';
import { REMOTE_RUN } from '../../helpers/remote-run';
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

function appWith(
  url: string,
  limits: Record<string, number>,
  more: Omit<LinkTuning, 'limits'> = {},
): AppCore {
  const app = new AppCore({
    host: { mode: 'serve', version: 't', allowOpenFolder: false },
    store: openStore({ path: null }),
    remotes: [url],
    remoteTuning: { backoff: { baseMs: 20, maxMs: 100 }, limits, ...more },
  });
  closers.push(() => app.dispose());
  return app;
}

describe('a hostile remote endpoint', () => {
  test('sends the Origin serve expects; garbage and malformed pushes are counted and dropped', async () => {
    const fake = await fakeEndpoint((ws) => {
      ws.on('message', (data) => {
        const { id, channel } = JSON.parse(data.toString()) as { id: number; channel: string };
        const value = channel === 'runs.list' ? [REMOTE_RUN] : [];
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
    // No background copy of its series here: only the two refresh answers draw garbage.
    const app = appWith(`http://127.0.0.1:${fake.port}/?token=tok`, {}, { keep: { series: 0 } });
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

  test('a remote that freezes with its socket open: its charts and details answer from the kept copy, not after the timeout', async () => {
    let frozen = false;
    const window = {
      run: 'r',
      tag: 't',
      steps: Float64Array.of(1, 2),
      wallTimes: Float64Array.of(1, 2),
      values: Float64Array.of(0.5, 0.6),
      length: 2,
      inRange: 2,
      downsampled: false,
      extent: { stepMin: 1, stepMax: 2, wallMin: 1, wallMax: 2 },
      restarts: [],
      sessions: [],
      untimed: 0,
    };
    const details = { run: 'r', config: null, progress: null, epochSummary: null, systemTags: [] };
    const ep = await fakeEndpoint((ws) => {
      ws.on('message', (data) => {
        if (frozen) return; // a SIGSTOPped agent: the socket stays, nothing comes back
        const { id, channel } = JSON.parse(data.toString()) as { id: number; channel: string };
        const value =
          channel === 'runs.list'
            ? [REMOTE_RUN]
            : channel === 'series.get'
              ? window
              : channel === 'runs.details'
                ? details
                : [];
        ws.send(encodeWire({ id, result: { ok: true, value } }));
      });
    });
    closers.push(ep.close);
    // A minute's request timeout: without the stand-in each request below would outlast the test's 20 s.
    const app = appWith(
      `http://127.0.0.1:${ep.port}/?token=t`,
      { requestTimeoutMs: 60_000 },
      { slowAnswerMs: 300 },
    );
    const h = createHandlers(app);
    const key = `127.0.0.1:${ep.port}//r`;
    await waitFor(() => app.remotes.keptSeries(`127.0.0.1:${ep.port}`) === 1, 'the kept copy filled');
    expect((await dispatch(h, 'runs.details', { run: key })).ok).toBe(true);
    frozen = true;
    for (let i = 0; i < 3; i++) {
      const r = await dispatch(h, 'series.get', { run: key, tag: 't', pixels: 100 });
      expect(r.ok && Array.from((r.value as { steps: Float64Array }).steps)).toEqual([1, 2]);
      const d = await dispatch(h, 'runs.details', { run: key });
      expect(d.ok && (d.value as { run: string }).run).toBe(key);
    }
    // Still the link's view: connected (the ping has not given up yet), and every answer came from the copy.
    expect(app.remotes.list()[0]!.state).toBe('connected');
  }, 20_000);

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

  test('a remote listing more runs than its budget is cut at 10 000, and says so', async () => {
    const fake = await fakeEndpoint((ws) => {
      ws.on('message', (data) => {
        const { id, channel } = JSON.parse(data.toString()) as { id: number; channel: string };
        const runs = Array.from({ length: 10_001 }, (_, i) => ({ ...REMOTE_RUN, run: `r${i}`, tags: [] }));
        ws.send(encodeWire({ id, result: { ok: true, value: channel === 'runs.list' ? runs : [] } }));
      });
    });
    closers.push(fake.close);
    const app = appWith(`http://127.0.0.1:${fake.port}/?token=tok`, {});
    await waitFor(() => app.runs().length === 10_000, 'the first 10 000 runs');
    expect(app.remotes.list()[0]).toMatchObject({
      state: 'connected',
      runs: 10_000,
      error: 'it lists 10001 runs: only the first 10000 are followed',
    });
  });

  test('a remote that drips its handshake one header line at a time is given up at the deadline, and says so', async () => {
    const sockets: Socket[] = [];
    const drips = createServer((sock) => {
      sockets.push(sock);
      sock.on('error', () => {});
      sock.once('data', () => {
        sock.write('HTTP/1.1 101 Switching Protocols\r\n');
        // Each line well inside the handshake limit: an idle timeout would never fire.
        const t = setInterval(() => sock.write(`X-Drip-${Date.now()}: 1\r\n`), 50);
        sock.on('close', () => clearInterval(t));
      });
    });
    await new Promise<void>((r) => drips.listen(0, '127.0.0.1', r));
    closers.push(
      () =>
        new Promise((r) => {
          for (const sock of sockets) sock.destroy();
          drips.close(() => r());
        }),
    );
    const port = (drips.address() as AddressInfo).port;
    const app = appWith(`http://127.0.0.1:${port}/?token=tok`, { handshakeTimeoutMs: 400 });
    await waitFor(() => app.remotes.list()[0]?.state === 'disconnected', 'the dripping handshake given up');
    expect(app.remotes.list()[0]!.error).toBe('no handshake within 400 ms');
    // Its connection was closed, not left open.
    await waitFor(() => sockets[0]!.destroyed, 'the connection closed');
  });

  test('a remote over its budget (fast or huge messages) is dropped; the local client is answered and stays', async () => {
    // About 800 KB each: under the 1 MiB message limit, so only the rate budget can stop them.
    const bigList = (i: number): string =>
      JSON.stringify({
        event: 'runs.changed',
        payload: [
          {
            ...REMOTE_RUN,
            run: `r${i}`,
            tags: Array.from({ length: 200 }, (_, k) => `${k}`.padEnd(4000, 'x')),
          },
        ],
      });
    let connection = 0;
    // The flood starts once the local browser is connected and busy (not reading for a moment).
    let startFlood!: () => void;
    const flood = new Promise<void>((r) => (startFlood = r));
    const fake = await fakeEndpoint((ws) => {
      const n = ++connection;
      ws.on('message', (data) => {
        const { id, channel } = JSON.parse(data.toString()) as { id: number; channel: string };
        ws.send(encodeWire({ id, result: { ok: true, value: channel === 'runs.list' ? [REMOTE_RUN] : [] } }));
        if (channel !== 'runs.list') return;
        // The first connection floods run lists as fast as it can; the next sends one message of 3 MB.
        if (n === 1) void flood.then(() => Array.from({ length: 20 }, (_, i) => ws.send(bigList(i))));
        else
          ws.send(
            JSON.stringify({ event: 'app.notice', payload: { level: 'info', message: 'x'.repeat(3 << 20) } }),
          );
      });
    });
    closers.push(fake.close);
    const app = appWith(
      `http://127.0.0.1:${fake.port}/?token=tok`,
      { maxMessageBytes: 1 << 20, maxBytesPerWindow: 4 << 20, rateWindowMs: 60_000 },
      { runsEveryMs: 500 },
    );
    const shown = new Set<string>();
    app.bus.on('endpoints.changed', (list) => list.forEach((e) => e.error !== null && shown.add(e.error)));
    const renderer = mkdtempSync(join(tmpdir(), 'rlwatch-renderer-'));
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>rlwatch</title>');
    const logged: string[] = [];
    const server = await startServer({
      bus: app.bus,
      handlers: createHandlers(app),
      rendererDir: renderer,
      token: 'local-token',
      clientLimits: { maxQueuedBytes: 4 << 20 },
      log: (m) => logged.push(m),
    });
    closers.push(() => server.close());

    // The local browser: connected before the flood, asking all along.
    const local = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=local-token`, {
      headers: { Origin: `http://127.0.0.1:${server.port}` },
    });
    await new Promise((r) => local.once('open', r));
    await waitFor(() => app.remotes.list()[0]?.state === 'connected', 'the remote connected');
    // A busy page: it reads nothing for a second while the remote floods (20 lists queued for it were 16 MB).
    const tcp = (local as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    tcp.pause();
    setTimeout(() => tcp.resume(), 1000).unref();
    startFlood();
    let closed = false;
    local.on('close', () => (closed = true));
    let received = 0;
    const answers = new Map<number, unknown>();
    local.on('message', (data) => {
      const text = (data as Buffer).toString();
      received += text.length;
      const m = JSON.parse(text) as { id?: number; result?: unknown };
      if (typeof m.id === 'number') answers.set(m.id, m.result);
    });
    let asked = 0;
    const ask = setInterval(
      () => local.send(JSON.stringify({ id: ++asked, channel: 'app.info', args: {} })),
      20,
    );
    closers.push(async () => {
      clearInterval(ask);
      local.terminate();
    });

    // Every error the endpoint showed (it reconnects within ms, so a poll of the list could miss one).
    const budget = 'dropped: it sent over 4 MiB within 60 s (its budget)';
    const size = 'dropped: a message over the size limit (1 MiB)';
    await waitFor(() => shown.has(budget), 'the flooding remote dropped');
    await waitFor(() => connection >= 2 && shown.has(size), 'the huge message dropped');
    clearInterval(ask);
    const last = asked;
    await waitFor(() => answers.has(last), 'the local client answered after the flood');
    // Every request answered, the connection kept, and what the remote pushed reached it coalesced: at most a
    // few of its ~800 KB lists (20 of them, 16 MB, without the budget).
    expect([...answers.values()].every((r) => (r as { ok: boolean }).ok)).toBe(true);
    expect(answers.size).toBe(asked);
    expect(closed).toBe(false);
    expect(logged.filter((m) => /dropped a client/.test(m))).toEqual([]);
    expect(received).toBeLessThan(4 << 20);
  });
});
