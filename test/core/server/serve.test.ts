// serve: token on the page and the socket, the contract over WebSocket, bad input refused without a crash.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { WebSocket } from 'ws';
import { decodeWire } from '../../../src/shared/wire-codec';
import { createHandlers } from '../../../src/core/app/handlers';
import { AppCore } from '../../../src/core/app/app-core';
import { startServer, type RunningServer } from '../../../src/core/server/serve';
import { openStore } from '../../../src/core/store';
import { EventFileWriter } from '../../../src/core/tfevents/writer';

const TOKEN = 'test-token-0123456789abcdef';

/** A socket as the page opens it: Origin is this server (pass `Origin: undefined`-free headers to override). */
function connect(
  url: string,
  headers: Record<string, string> = { Origin: new URL(url).origin.replace('ws:', 'http:') },
): Promise<WebSocket> {
  return new Promise((res, rej) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => res(ws));
    ws.once('unexpected-response', (_req, r) => rej(new Error(`HTTP ${r.statusCode}`)));
    ws.once('error', rej);
  });
}

/** Sends raw bytes on a fresh TCP connection and returns the status line of the answer ('' if none). */
function rawStatus(port: number, bytes: string): Promise<string> {
  return new Promise((res) => {
    const sock = tcpConnect(port, '127.0.0.1');
    let got = '';
    sock.on('data', (d) => (got += d.toString('latin1')));
    sock.on('error', () => res(got.split('\r\n')[0] ?? ''));
    sock.on('close', () => res(got.split('\r\n')[0] ?? ''));
    sock.write(bytes);
    setTimeout(() => sock.end(), 300);
  });
}

function request(
  ws: WebSocket,
  msg: unknown,
): Promise<{ id: unknown; result: { ok: boolean; error?: { code: string } } }> {
  return new Promise((res) => {
    const onMessage = (data: Buffer): void => {
      const m = decodeWire(data.toString()) as { id?: unknown; result?: unknown };
      if ('result' in m) {
        ws.off('message', onMessage);
        res(m as never);
      }
    };
    ws.on('message', onMessage);
    ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  });
}

describe('serve', () => {
  let server: RunningServer;
  let core: AppCore;
  let base: string;
  let runDir: string;

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'rlwatch-serve-'));
    runDir = join(root, 'run1');
    mkdirSync(runDir);
    const w = new EventFileWriter(runDir, { wallTime: 1000 });
    w.scalars(0, [{ tag: 'loss', value: 1.5 }], 'simple', 1000);
    w.close();
    const renderer = mkdtempSync(join(tmpdir(), 'rlwatch-renderer-'));
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>rlwatch</title>');
    mkdirSync(join(renderer, 'assets'));
    writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(join(root, 'secret.txt'), 'outside the renderer');
    core = new AppCore({
      host: { mode: 'serve', version: 't', allowOpenFolder: false },
      store: openStore({ path: null }),
    });
    await core.open(root);
    const handlers = createHandlers(core);
    server = await startServer({
      bus: core.bus,
      handlers,
      rendererDir: renderer,
      token: TOKEN,
      port: 0,
      maxMessageBytes: 4096,
    });
    base = `http://127.0.0.1:${server.port}`;
  });

  afterAll(async () => {
    await server.close();
    await core.dispose();
  });

  test('prints a URL on 127.0.0.1 carrying the token', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${TOKEN}`);
  });

  test('the page needs the token; with it a cookie lets the assets load', async () => {
    expect((await fetch(`${base}/`)).status).toBe(401);
    expect((await fetch(`${base}/?token=wrong`)).status).toBe(401);
    expect((await fetch(`${base}/assets/app.js`)).status).toBe(401);
    const page = await fetch(`${base}/?token=${TOKEN}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const setCookie = page.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).not.toMatch(/Domain=/i);
    const cookie = setCookie.split(';')[0]!;
    expect(cookie.startsWith(`rlwatch_assets_${server.port}=`)).toBe(true);
    const asset = await fetch(`${base}/assets/app.js`, { headers: { cookie } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
  });

  test('assets go brotli- or gzip-compressed to a client that takes it, plain otherwise', async () => {
    const page = await fetch(`${base}/?token=${TOKEN}`);
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const raw = (encoding: string | null) =>
      new Promise<{ coding: string | undefined; vary: string | undefined; body: Buffer }>((res, rej) => {
        const headers: Record<string, string> = {
          cookie,
          ...(encoding ? { 'Accept-Encoding': encoding } : {}),
        };
        const req = httpRequest(
          { host: '127.0.0.1', port: server.port, path: '/assets/app.js', headers },
          (r) => {
            const chunks: Buffer[] = [];
            r.on('data', (d: Buffer) => chunks.push(d));
            r.on('end', () =>
              res({
                coding: r.headers['content-encoding'],
                vary: r.headers['vary'] as string | undefined,
                body: Buffer.concat(chunks),
              }),
            );
          },
        );
        req.on('error', rej);
        req.end();
      });
    const br = await raw('gzip, deflate, br');
    expect(br.coding).toBe('br');
    expect(br.vary).toBe('Accept-Encoding');
    expect(brotliDecompressSync(br.body).toString()).toBe('console.log(1)');
    const gz = await raw('gzip');
    expect(gz.coding).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe('console.log(1)');
    const plain = await raw(null);
    expect([plain.coding, plain.body.toString()]).toEqual([undefined, 'console.log(1)']);
    const refused = await raw('br;q=0, gzip;q=0');
    expect([refused.coding, refused.body.toString()]).toEqual([undefined, 'console.log(1)']);
  });

  test('no path escapes the renderer folder', async () => {
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/%00']) {
      const r = await fetch(`${base}${p}?token=${TOKEN}`);
      expect(r.status).toBe(404);
    }
    expect((await fetch(`${base}/?token=${TOKEN}`, { method: 'POST' })).status).toBe(405);
  });

  test('the socket refuses a missing or wrong token, and foreign origins', async () => {
    await expect(connect(`ws://127.0.0.1:${server.port}/ws`)).rejects.toThrow(/403/);
    await expect(connect(`ws://127.0.0.1:${server.port}/ws?token=nope`)).rejects.toThrow(/403/);
    await expect(
      connect(`ws://127.0.0.1:${server.port}/ws?token=${TOKEN}`, { Origin: 'http://evil.example' }),
    ).rejects.toThrow(/403/);
    await expect(connect(`ws://127.0.0.1:${server.port}/other?token=${TOKEN}`)).rejects.toThrow(/404/);
  });

  test('the cookie never holds the token and never opens the socket; the socket needs a matching Origin', async () => {
    const page = await fetch(`${base}/?token=${TOKEN}`);
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    // Cookies ignore ports: another server on 127.0.0.1 receives this one. It must not be the token.
    expect(cookie).not.toContain(TOKEN);
    const ws = `ws://127.0.0.1:${server.port}/ws`;
    const origin = `http://127.0.0.1:${server.port}`;
    await expect(connect(ws, { Origin: origin, Cookie: cookie })).rejects.toThrow(/403/);
    await expect(connect(ws, { Origin: origin, Cookie: `rlwatch_token=${TOKEN}` })).rejects.toThrow(/403/);
    // With the token but no Origin (a non-browser client holding a leaked cookie's value): refused.
    await expect(connect(`${ws}?token=${TOKEN}`, {})).rejects.toThrow(/403/);
    const ok = await connect(`${ws}?token=${TOKEN}`, { Origin: origin });
    ok.close();
  });

  test('only the bound host names are answered (DNS rebinding)', async () => {
    const port = server.port;
    const get = (host: string, target = `/?token=${TOKEN}`): Promise<string> =>
      rawStatus(port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    expect(await get(`evil.example:${port}`)).toMatch(/^HTTP\/1\.1 421/);
    expect(await get('evil.example')).toMatch(/^HTTP\/1\.1 421/);
    expect(await get('')).toMatch(/^HTTP\/1\.1 (400|421)/);
    expect(await get(`localhost:${port}`)).toMatch(/^HTTP\/1\.1 200/);
    expect(await get(`127.0.0.1:${port}`)).toMatch(/^HTTP\/1\.1 200/);
    expect(await get(`[::1]:${port}`)).toMatch(/^HTTP\/1\.1 200/);
    await expect(
      connect(`ws://127.0.0.1:${port}/ws?token=${TOKEN}`, {
        Host: `evil.example:${port}`,
        Origin: `http://evil.example:${port}`,
      }),
    ).rejects.toThrow(/421/);
  });

  test('answers contract requests and refuses bad ones without dropping the connection', async () => {
    const ws = await connect(`ws://127.0.0.1:${server.port}/ws?token=${TOKEN}`);
    const runs = await request(ws, { id: 1, channel: 'runs.list', args: {} });
    expect(runs).toMatchObject({ id: 1, result: { ok: true, value: [{ run: 'run1', tags: ['loss'] }] } });
    const series = await request(ws, {
      id: 2,
      channel: 'series.get',
      args: { run: 'run1', tag: 'loss', pixels: 500 },
    });
    expect(series.result).toMatchObject({
      ok: true,
      value: {
        steps: new Float64Array([0]),
        wallTimes: new Float64Array([1000]),
        values: new Float64Array([1.5]),
        length: 1,
      },
    });
    expect(
      (await request(ws, { id: 3, channel: 'fs.readFile', args: { path: '/etc/passwd' } })).result,
    ).toMatchObject({
      ok: false,
      error: { code: 'unknown-channel' },
    });
    expect((await request(ws, { id: 4, channel: 'series.get', args: { run: ['x'] } })).result).toMatchObject({
      ok: false,
      error: { code: 'bad-request' },
    });
    expect((await request(ws, '{not json')).result).toMatchObject({
      ok: false,
      error: { code: 'bad-request' },
    });
    expect(
      (await request(ws, { id: 5, channel: 'runs.openFolder', args: { path: '/' } })).result,
    ).toMatchObject({
      ok: false,
      error: { code: 'unavailable' },
    });
    // Still alive after all that.
    expect((await request(ws, { id: 6, channel: 'app.info', args: {} })).result).toMatchObject({ ok: true });
    ws.close();
  });

  test('an oversized message closes only that socket; the server keeps serving', async () => {
    const ws = await connect(`ws://127.0.0.1:${server.port}/ws?token=${TOKEN}`);
    const closed = new Promise<number>((res) => ws.once('close', (code) => res(code)));
    ws.send(JSON.stringify({ id: 1, channel: 'runs.list', args: {}, pad: 'x'.repeat(10_000) }));
    expect(await closed).toBe(1009);
    const again = await connect(`ws://127.0.0.1:${server.port}/ws?token=${TOKEN}`);
    expect((await request(again, { id: 1, channel: 'app.info', args: {} })).result).toMatchObject({
      ok: true,
    });
    again.close();
  });

  test('hostile request targets and cookies get a status code, never an exit (no token needed to try)', async () => {
    const port = server.port;
    const get = (target: string, headers = ''): string =>
      `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}Connection: close\r\n\r\n`;
    const upgrade = (target: string, headers = ''): string =>
      get(
        target,
        `Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n${headers}`,
      );
    expect(await rawStatus(port, get('//'))).toMatch(/^HTTP\/1\.1 400/);
    expect(await rawStatus(port, get('//['))).toMatch(/^HTTP\/1\.1 400/);
    expect(await rawStatus(port, get('/', 'Cookie: rlwatch_token=%\r\n'))).toMatch(/^HTTP\/1\.1 401/);
    expect(await rawStatus(port, get('/assets/app.js', 'Cookie: rlwatch_token=%E0%A4%A\r\n'))).toMatch(
      /^HTTP\/1\.1 401/,
    );
    expect(await rawStatus(port, upgrade('//'))).toMatch(/^HTTP\/1\.1 400/);
    expect(await rawStatus(port, upgrade('//['))).toMatch(/^HTTP\/1\.1 400/);
    expect(await rawStatus(port, upgrade('/ws', 'Cookie: rlwatch_token=%\r\n'))).toMatch(/^HTTP\/1\.1 403/);
    // A cross-origin page's no-cors fetch of `//` is one of these; the server is still here after all of them.
    expect((await fetch(`http://127.0.0.1:${port}//`)).status).toBe(400);
    expect((await fetch(`http://127.0.0.1:${port}/?token=${TOKEN}`)).status).toBe(200);
  });

  test('a deeply nested saveView is a bad-request answer, and the socket stays open', async () => {
    const ws = await connect(`ws://127.0.0.1:${server.port}/ws?token=${TOKEN}`);
    const deep = '['.repeat(2000) + ']'.repeat(2000);
    const reply = await request(ws, `{"id":7,"channel":"runs.saveView","args":{"view":{"pins":${deep}}}}`);
    expect(reply.result).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    expect((await request(ws, { id: 8, channel: 'app.info', args: {} })).result).toMatchObject({ ok: true });
    ws.close();
  });

  test('pushes appended points to connected clients', async () => {
    const ws = await connect(`ws://127.0.0.1:${server.port}/ws?token=${TOKEN}`);
    const got = new Promise<{ tag: string; values: Float64Array }>((res) => {
      ws.on('message', (d: Buffer) => {
        const m = decodeWire(d.toString()) as {
          event?: string;
          payload?: { tag: string; values: Float64Array };
        };
        if (m.event === 'series.appended' && m.payload?.tag === 'reward') res(m.payload);
      });
    });
    const w = new EventFileWriter(runDir, { wallTime: 2000, fileName: 'events.out.tfevents.2000.host.1.0' });
    w.scalars(1, [{ tag: 'reward', value: Number.NaN }], 'simple', 2000);
    w.close();
    const values = (await got).values;
    expect(values).toBeInstanceOf(Float64Array);
    expect([...values]).toEqual([Number.NaN]);
    ws.close();
  });
});

describe('serve under a client that never reads', () => {
  let server: RunningServer;
  let core: AppCore;
  const logged: string[] = [];

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'rlwatch-serve-slow-'));
    const runDir = join(root, 'big');
    mkdirSync(runDir);
    const w = new EventFileWriter(runDir, { wallTime: 1000 });
    for (let i = 0; i < 40_000; i++) w.scalars(i, [{ tag: 'loss', value: Math.sin(i) }], 'simple', 1000 + i);
    w.close();
    const renderer = mkdtempSync(join(tmpdir(), 'rlwatch-renderer-'));
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>rlwatch</title>');
    core = new AppCore({
      host: { mode: 'serve', version: 't', allowOpenFolder: false },
      store: openStore({ path: null }),
    });
    await core.open(root);
    server = await startServer({
      bus: core.bus,
      handlers: createHandlers(core),
      rendererDir: renderer,
      token: TOKEN,
      clientLimits: { maxQueuedBytes: 4 * 1024 * 1024, stallMs: 1500 },
      log: (m) => logged.push(m),
    });
  });

  afterAll(async () => {
    await server.close();
    await core.dispose();
  });

  test('its queued bytes stay bounded (it is dropped) and a second client is answered meanwhile', async () => {
    const url = `ws://127.0.0.1:${server.port}/ws?token=${TOKEN}`;
    const slow = await connect(url);
    // Stop reading at the TCP level: answers pile up on the server side of this socket.
    (slow as unknown as { _socket: { pause(): void } })._socket.pause();
    const big = { channel: 'series.get', args: { run: 'big', tag: 'loss', pixels: 20000 } };
    for (let i = 0; i < 200; i++) slow.send(JSON.stringify({ id: i, ...big }));

    const other = await connect(url);
    const info = await request(other, { id: 1, channel: 'app.info', args: {} });
    expect(info.result).toMatchObject({ ok: true });
    const window = await request(other, { id: 2, ...big });
    expect(window.result).toMatchObject({ ok: true, value: { length: 40_000 } });

    await vi.waitFor(() => expect(logged.join('\n')).toMatch(/dropped a client/), { timeout: 20_000 });
    // 200 answers of ~1.3 MB each would be ~260 MB held for the slow client without the bound.
    expect((await request(other, { id: 3, channel: 'app.info', args: {} })).result).toMatchObject({
      ok: true,
    });
    other.close();
    slow.terminate();
  });
});

describe('serve under a WebSocket fragment flood', () => {
  test('a message split into thousands of empty fragments closes that socket; the server keeps serving', async () => {
    const root = mkdtempSync(join(tmpdir(), 'rlwatch-serve-frag-'));
    const renderer = mkdtempSync(join(tmpdir(), 'rlwatch-renderer-'));
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>rlwatch</title>');
    const core = new AppCore({
      host: { mode: 'serve', version: 't', allowOpenFolder: false },
      store: openStore({ path: null }),
    });
    await core.open(root);
    const server = await startServer({
      bus: core.bus,
      handlers: createHandlers(core),
      rendererDir: renderer,
      token: TOKEN,
      log: () => {},
    });
    try {
      const port = server.port;
      const sock = tcpConnect(port, '127.0.0.1');
      let got = Buffer.alloc(0);
      const closed = new Promise<void>((res) => sock.on('close', () => res()));
      sock.on('data', (d: Buffer) => (got = Buffer.concat([got, d])));
      sock.on('error', () => {});
      await new Promise<void>((res) => sock.once('connect', () => res()));
      sock.write(
        `GET /ws?token=${TOKEN} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: http://127.0.0.1:${port}\r\n` +
          'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
          'Sec-WebSocket-Version: 13\r\n\r\n',
      );
      await vi.waitFor(() => expect(got.toString('latin1')).toMatch(/^HTTP\/1\.1 101/));
      // A text frame without FIN, then continuation frames without FIN: masked, empty payloads.
      const frame = (opcode: number): Buffer => Buffer.from([opcode, 0x80, 1, 2, 3, 4]);
      const flood = [frame(0x01)];
      for (let i = 0; i < 5000; i++) flood.push(frame(0x00));
      sock.write(Buffer.concat(flood));
      await closed;
      // The server's close frame (opcode 8) names 1008 (policy: too many fragments) before the connection ends.
      const close = got.indexOf(Buffer.from([0x88]));
      expect(close).toBeGreaterThan(0);
      expect(got.readUInt16BE(close + 2)).toBe(1008);
      const other = await connect(`ws://127.0.0.1:${port}/ws?token=${TOKEN}`);
      expect((await request(other, { id: 1, channel: 'app.info', args: {} })).result).toMatchObject({
        ok: true,
      });
      other.close();
    } finally {
      await server.close();
      await core.dispose();
    }
  });
});
