// Fuzzing serve's surfaces: ≥ 100k random paths, headers, cookies, frames and channel arguments, 0 exits.

import fc from 'fast-check';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { dispatch } from '../../../src/core/api/dispatch';
import { AppCore } from '../../../src/core/app/app-core';
import { createHandlers } from '../../../src/core/app/handlers';
import { startServer, type RunningServer } from '../../../src/core/server/serve';
import { MetricsExposition } from '../../../src/core/metrics/exposition';
import { openStore } from '../../../src/core/store';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import { REQUEST_CHANNELS } from '../../../src/shared/channels';
import type { Handlers } from '../../../src/shared/contract';

const TOKEN = 'fuzz-token-0123456789abcdef';
const METRICS_TOKEN = 'fuzz-metrics-token-0123456789';
const SEED = 20261124;

let core: AppCore;
let server: RunningServer;
let handlers: Handlers;
const logged: string[] = [];

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'rlwatch-fuzz-'));
  mkdirSync(join(root, 'run1'));
  const w = new EventFileWriter(join(root, 'run1'), { wallTime: 1000 });
  for (let i = 0; i < 50; i++) w.scalars(i, [{ tag: 'loss', value: 1 / (i + 1) }], 'simple', 1000 + i);
  w.close();
  const renderer = mkdtempSync(join(tmpdir(), 'rlwatch-fuzz-renderer-'));
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>rlwatch</title>');
  core = new AppCore({
    host: { mode: 'serve', version: 't', allowOpenFolder: false },
    store: openStore({ path: null }),
  });
  await core.open(root);
  handlers = createHandlers(core);
  server = await startServer({
    bus: core.bus,
    handlers,
    rendererDir: renderer,
    token: TOKEN,
    log: (m) => logged.push(m),
    metrics: { scraper: new MetricsExposition(core), token: METRICS_TOKEN },
  });
});

afterAll(async () => {
  await server.close();
  await core.dispose();
});

/** Values of every JSON shape, deep and wide enough to reach the schemas' edges. */
const anyJson = fc.jsonValue({ maxDepth: 6 });
const anyArgs = fc.oneof(
  anyJson,
  fc.record({
    run: fc.oneof(fc.constant('run1'), fc.string(), anyJson),
    tag: fc.oneof(fc.constant('loss'), fc.string(), anyJson),
    pixels: fc.oneof(fc.integer(), fc.double(), anyJson),
    xMin: fc.oneof(fc.double(), anyJson),
    id: fc.oneof(fc.string(), anyJson),
    view: anyJson,
    path: fc.string(),
  }),
);
const anyChannel = fc.oneof(fc.constantFrom(...REQUEST_CHANNELS), fc.string(), anyJson);

/** The three runs of thousands of requests take seconds alone and many times that beside other test lanes on a
 * loaded 2-core machine: a wall-clock guard, not a speed check. */
const HEAVY_MS = 180_000;

describe('fuzz: the contract behind both transports', () => {
  test(
    '70,000 random channel/argument pairs: a typed Result every time, never a throw',
    async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(anyChannel, anyArgs, async (channel, args) => {
          // runs.openFolder is refused in serve mode; chooseFolder has no picker: nothing leaves the sandbox.
          const r = await dispatch(handlers, channel, args);
          n++;
          return typeof r === 'object' && r !== null && typeof r.ok === 'boolean';
        }),
        { numRuns: 70_000, seed: SEED },
      );
      expect(n).toBe(70_000);
    },
    HEAVY_MS,
  );
});

/** Sends one raw request on its own connection; resolves with the status code, or 0 when it was closed unanswered. */
function oneRequest(port: number, request: string): Promise<number> {
  return new Promise((res) => {
    const sock = tcpConnect(port, '127.0.0.1');
    let got = '';
    const done = (): void => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(got);
      res(m ? Number(m[1]) : 0);
    };
    sock.on('data', (d) => {
      got += d.toString('latin1');
      if (got.includes('\r\n\r\n')) sock.destroy();
    });
    sock.on('error', done);
    sock.on('close', done);
    sock.setTimeout(10_000, () => sock.destroy());
    sock.write(request);
  });
}

const tokenish = fc.oneof(
  fc.constant(TOKEN),
  fc.string(),
  fc.constantFrom('%', '%zz', '%E0%A4%A', '=', ';', '\u0000', '☃'),
);
const pathChar = fc.constantFrom(..."/[]%.?#&=;:@!$'()*+,~-_abcAZ09 \\".split(''));
const target = fc.oneof(
  fc.array(pathChar, { maxLength: 40 }).map((cs) => cs.join('')),
  fc.constantFrom(
    '/',
    '//',
    '//[',
    '/ws',
    '/metrics',
    '/index.html',
    '/assets/x.js',
    '/../../etc/passwd',
    '*',
    '',
  ),
  fc.webUrl(),
);
const headerValue = fc
  .array(fc.integer({ min: 0x20, max: 0x7e }), { maxLength: 60 })
  .map((cs) => String.fromCharCode(...cs));
const rawRequest = fc
  .record({
    method: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'OPTIONS', 'BREW', 'get'),
    target,
    host: fc.oneof(
      fc.constant(`127.0.0.1`),
      fc.constant('localhost'),
      fc.constant('evil.example'),
      headerValue,
    ),
    cookie: fc.option(
      fc
        .tuple(fc.constantFrom('rlwatch_token', 'rlwatch_assets_1', 'x'), tokenish)
        .map(([k, v]) => `${k}=${v}`),
    ),
    origin: fc.option(fc.oneof(fc.constant('http://127.0.0.1'), headerValue)),
    upgrade: fc.boolean(),
    token: fc.option(tokenish),
    authorization: fc.option(fc.oneof(fc.constant(`Bearer ${METRICS_TOKEN}`), headerValue)),
  })
  .map((r) => {
    const query =
      r.token === null ? '' : `${r.target.includes('?') ? '&' : '?'}token=${encodeURIComponent(r.token)}`;
    const t = (r.target + query).replace(/[\r\n ]/g, '') || '/';
    const lines = [`${r.method} ${t} HTTP/1.1`, `Host: ${r.host}`];
    if (r.cookie !== null) lines.push(`Cookie: ${r.cookie.replace(/[\r\n]/g, '')}`);
    if (r.origin !== null) lines.push(`Origin: ${r.origin}`);
    if (r.authorization !== null) lines.push(`Authorization: ${r.authorization}`);
    if (r.upgrade) {
      lines.push('Upgrade: websocket', 'Connection: Upgrade', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==');
      lines.push('Sec-WebSocket-Version: 13');
    }
    return lines.join('\r\n') + '\r\n\r\n';
  });

describe('fuzz: HTTP and upgrade requests without and with the token', () => {
  test(
    '20,000 random requests, each on its own connection: each gets a status code, the server keeps serving',
    async () => {
      const requests = fc.sample(rawRequest, { numRuns: 20_000, seed: SEED });
      const statuses = new Map<number, number>();
      for (let i = 0; i < requests.length; i += 50) {
        const batch = await Promise.all(requests.slice(i, i + 50).map((r) => oneRequest(server.port, r)));
        for (const code of batch) statuses.set(code, (statuses.get(code) ?? 0) + 1);
      }
      // Node's parser answers malformed requests 400 itself; everything else is ours: 101/200/400/401/403/404/405/421.
      expect(statuses.get(0) ?? 0).toBe(0);
      expect([...statuses.keys()].every((c) => [101, 200, 400, 401, 403, 404, 405, 421].includes(c))).toBe(
        true,
      );
      expect(statuses.get(421)).toBeGreaterThan(0);
      expect(statuses.get(401)).toBeGreaterThan(0);
      const page = await fetch(`http://127.0.0.1:${server.port}/?token=${TOKEN}`);
      expect(page.status).toBe(200);
    },
    HEAVY_MS,
  );
});

describe('fuzz: WebSocket messages', () => {
  test(
    '10,000 random text and binary messages on one socket: each answered with an error or a result',
    async () => {
      const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${TOKEN}`, {
        headers: { Origin: `http://127.0.0.1:${server.port}` },
      });
      await new Promise((res, rej) => {
        ws.once('open', res);
        ws.once('error', rej);
      });
      const message = fc.oneof(
        fc.string({ maxLength: 200 }),
        fc
          .record({ id: fc.oneof(fc.integer(), fc.string(), anyJson), channel: anyChannel, args: anyArgs })
          .map((m) => JSON.stringify(m)),
        fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
      );
      const messages = fc.sample(message, { numRuns: 10_000, seed: SEED });
      let answers = 0;
      let wanted = 0;
      let wake: () => void = () => {};
      ws.on('message', (d: Buffer) => {
        if (d.toString().startsWith('{"id"')) answers++;
        if (answers === wanted) wake();
      });
      // In batches under the per-client limit of waiting requests (a flood beyond it is dropped by design).
      for (let i = 0; i < messages.length; i += 250) {
        const batch = messages.slice(i, i + 250);
        wanted += batch.length;
        const done = new Promise<void>((res) => (wake = res));
        for (const m of batch) ws.send(m);
        await done;
      }
      expect(answers).toBe(10_000);
      ws.close();
    },
    HEAVY_MS,
  );
});
