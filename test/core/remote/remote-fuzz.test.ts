// Fuzz: whatever a remote endpoint sends (any text, any JSON, any event with any payload, answers to any id), the
// local app stays up, keeps its well-formed runs, counts what it dropped and answers its own client.

import fc from 'fast-check';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppCore } from '../../../src/core/app/app-core';
import { createHandlers } from '../../../src/core/app/handlers';
import { dispatch } from '../../../src/core/api/dispatch';
import { openStore } from '../../../src/core/store';
import { PUSH_EVENTS } from '../../../src/shared/channels';
import { encodeWire } from '../../../src/shared/wire-codec';
import { REMOTE_RUN } from '../../helpers/remote-run';
import { waitFor } from '../../helpers/wait-for';

/** What a broken or hostile remote may send: raw text, any JSON, known events with any payload, stray answers. */
const message = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.json({ maxDepth: 4 }),
  fc
    .record({
      event: fc.constantFrom(...PUSH_EVENTS, 'no.such.event'),
      payload: fc.jsonValue({ maxDepth: 4 }),
    })
    .map((m) => JSON.stringify(m)),
  fc
    .record({
      event: fc.constant('runs.changed'),
      payload: fc.array(fc.record({ run: fc.oneof(fc.string(), fc.integer()), tags: fc.jsonValue() }), {
        maxLength: 5,
      }),
    })
    .map((m) => JSON.stringify(m)),
  fc
    .record({ id: fc.oneof(fc.integer(), fc.double(), fc.string()), result: fc.jsonValue({ maxDepth: 3 }) })
    .map((m) => JSON.stringify(m)),
);

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

describe('remote client fuzz', () => {
  test('800 arbitrary messages: the link stays, garbage is counted, every run listed is well-formed, the app answers', async () => {
    // A fixed seed: the same messages every run (a failure is reproducible).
    const burst = fc.sample(message, { numRuns: 800, seed: 22_2026 });
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((r) => wss.once('listening', r));
    closers.push(
      () =>
        new Promise((r) => {
          for (const c of wss.clients) c.terminate();
          wss.close(() => r());
        }),
    );
    let sent = false;
    wss.on('connection', (ws: WebSocket) => {
      ws.on('message', (data) => {
        const { id, channel } = JSON.parse(data.toString()) as { id: number; channel: string };
        ws.send(encodeWire({ id, result: { ok: true, value: channel === 'runs.list' ? [REMOTE_RUN] : [] } }));
        if (channel !== 'runs.list' || sent) return;
        sent = true;
        for (const m of burst) ws.send(typeof m === 'string' ? m : JSON.stringify(m));
        ws.send(JSON.stringify({ event: 'app.notice', payload: { level: 'info', message: 'burst done' } }));
      });
    });
    const port = (wss.address() as AddressInfo).port;
    const app = new AppCore({
      host: { mode: 'serve', version: 't', allowOpenFolder: false },
      store: openStore({ path: null }),
      remotes: [`http://127.0.0.1:${port}/?token=tok`],
      remoteTuning: { backoff: { baseMs: 20, maxMs: 100 }, keep: { series: 0 } },
    });
    closers.push(() => app.dispose());
    const notices: string[] = [];
    app.bus.on('app.notice', (n) => notices.push(n.message));
    await waitFor(() => notices.some((m) => m.includes('burst done')), 'the burst read to its end');

    const endpoint = app.remotes.list()[0]!;
    expect(endpoint.state).toBe('connected');
    expect(endpoint.dropped).toBeGreaterThan(100);
    // Every run the app lists is well-formed, whatever the run lists in the burst said.
    for (const r of app.runs()) {
      expect(typeof r.run).toBe('string');
      expect(Array.isArray(r.tags)).toBe(true);
      expect(r.tags.every((t) => typeof t === 'string')).toBe(true);
    }
    const h = createHandlers(app);
    expect(await dispatch(h, 'runs.list', {})).toMatchObject({ ok: true });
    expect(await dispatch(h, 'settings.get', {})).toMatchObject({ ok: true });
  });
});
