// /metrics on serve: its own bearer token (never the page token), a separate open bind, the agent's no-UI mode.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { createHandlers } from '../../../src/core/app/handlers';
import { AppCore } from '../../../src/core/app/app-core';
import { MetricsExposition } from '../../../src/core/metrics/exposition';
import { startServer, type RunningServer } from '../../../src/core/server/serve';
import { acceptsGzip } from '../../../src/core/server/metrics-endpoint';
import { assetCookieName, assetPass } from '../../../src/core/server/token';
import { openStore } from '../../../src/core/store';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import { decodeWire } from '../../../src/shared/wire-codec';
import { metricsOptions } from '../../../src/cli/metrics-flags';
import { UsageError } from '../../../src/cli/usage';

const TOKEN = 'page-token-0123456789abcdef';
const METRICS_TOKEN = 'metrics-token-0123456789';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request (fetch cannot set Host), answered with status, headers and body. */
function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Answer> {
  return new Promise((res, rej) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (r) => {
      let body = '';
      r.on('data', (d: Buffer) => (body += d.toString()));
      r.on('end', () => res({ status: r.statusCode ?? 0, headers: r.headers, body }));
    });
    req.on('error', rej);
    req.end();
  });
}

const bearer = (t: string): Record<string, string> => ({ Authorization: `Bearer ${t}` });

/** `get`, with the body as bytes (a gzipped answer). */
function getBytes(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ headers: Answer['headers']; body: Buffer }> {
  return new Promise((res, rej) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (d: Buffer) => chunks.push(d));
      r.on('end', () => res({ headers: r.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', rej);
    req.end();
  });
}

describe('/metrics on serve', () => {
  let core: AppCore;
  let renderer: string;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'rlwatch-metrics-'));
    const runDir = join(root, 'run1');
    mkdirSync(runDir);
    const w = new EventFileWriter(runDir, { wallTime: 1000 });
    w.scalars(7, [{ tag: 'loss', value: 1.5 }], 'simple', 1000.25);
    w.close();
    renderer = mkdtempSync(join(tmpdir(), 'rlwatch-renderer-'));
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>rlwatch</title>');
    core = new AppCore({
      host: { mode: 'serve', version: 't', allowOpenFolder: false },
      store: openStore({ path: null }),
    });
    await core.open(root);
  });

  afterAll(async () => {
    for (const s of servers) await s.close();
    await core.dispose();
  });

  async function serve(opts: Partial<Parameters<typeof startServer>[0]> = {}): Promise<RunningServer> {
    const s = await startServer({
      bus: core.bus,
      handlers: createHandlers(core),
      rendererDir: renderer,
      token: TOKEN,
      port: 0,
      ...opts,
    });
    servers.push(s);
    return s;
  }

  test('with --metrics-token: a bearer token opens it; the page token, its cookie, a wrong token do not', async () => {
    const s = await serve({ metrics: { scraper: new MetricsExposition(core), token: METRICS_TOKEN } });
    expect(s.metricsUrl).toBe(`http://127.0.0.1:${s.port}/metrics`);
    const ok = await get(s.port, '/metrics', bearer(METRICS_TOKEN));
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(ok.body).toContain('rlwatch_scalar{run="run1",tag="loss"} 1.5');
    expect(ok.body).toContain('rlwatch_scalar_step{run="run1",tag="loss"} 7');
    expect(ok.body).toContain('rlwatch_scalar_wall_time_seconds{run="run1",tag="loss"} 1000.25');
    expect((await get(s.port, '/metrics', { authorization: `bearer ${METRICS_TOKEN}` })).status).toBe(200);
    const head = await get(s.port, '/metrics', bearer(METRICS_TOKEN), 'HEAD');
    expect([head.status, head.body]).toEqual([200, '']);

    const refused = [
      await get(s.port, '/metrics'),
      await get(s.port, '/metrics', bearer('x'.repeat(METRICS_TOKEN.length))),
      await get(s.port, `/metrics?token=${TOKEN}`),
      await get(s.port, '/metrics', bearer(TOKEN)),
      await get(s.port, '/metrics', { Cookie: `${assetCookieName(s.port)}=${assetPass(TOKEN)}` }),
      await get(s.port, '/metrics', { Authorization: `Basic ${METRICS_TOKEN}` }),
      await get(s.port, '/metrics', { Authorization: `Bearer ${METRICS_TOKEN}x`.padEnd(2000, 'y') }),
    ];
    expect(refused.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 401, 401]);
    expect(refused[0]!.headers['www-authenticate']).toBe('Bearer realm="rlwatch metrics"');
    expect(refused.every((r) => !r.body.includes('rlwatch_scalar'))).toBe(true);
    // Host guard first, as for every path on the main port; other methods are refused.
    expect(
      (await get(s.port, '/metrics', { ...bearer(METRICS_TOKEN), Host: 'evil.example:80' })).status,
    ).toBe(421);
    expect((await get(s.port, '/metrics', bearer(METRICS_TOKEN), 'POST')).status).toBe(405);
  });

  test('a scraper that accepts gzip gets the exposition gzipped (Prometheus sends Accept-Encoding: gzip)', async () => {
    const s = await serve({ metrics: { scraper: new MetricsExposition(core), token: METRICS_TOKEN } });
    const raw = await getBytes(s.port, '/metrics', {
      ...bearer(METRICS_TOKEN),
      'Accept-Encoding': 'gzip, deflate',
    });
    expect(raw.headers['content-encoding']).toBe('gzip');
    expect(raw.headers['vary']).toBe('Accept-Encoding');
    const text = gunzipSync(raw.body).toString('utf8');
    expect(text).toContain('rlwatch_scalar{run="run1",tag="loss"} 1.5');
    // The same exposition as plain text, which a scraper without gzip (or refusing it) gets.
    const plain = await get(s.port, '/metrics', bearer(METRICS_TOKEN));
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.split('\n').filter((l) => l.startsWith('rlwatch_scalar'))).toEqual(
      text.split('\n').filter((l) => l.startsWith('rlwatch_scalar')),
    );
    const refused = await get(s.port, '/metrics', {
      ...bearer(METRICS_TOKEN),
      'Accept-Encoding': 'gzip;q=0',
    });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(acceptsGzip({ headers: { 'accept-encoding': '*' } })).toBe(true);
    expect(acceptsGzip({ headers: { 'accept-encoding': 'br, gzip;q=0.5' } })).toBe(true);
    expect(acceptsGzip({ headers: { 'accept-encoding': 'identity' } })).toBe(false);
  });

  test('without a metrics token or bind: 404 with what to do; the page token does not open it', async () => {
    const s = await serve();
    expect(s.metricsUrl).toBeNull();
    const r = await get(s.port, `/metrics?token=${TOKEN}`);
    expect(r.status).toBe(404);
    expect(r.body).toMatch(/--metrics-token TOKEN.*--metrics-host\/--metrics-port/s);
  });

  test('a separate bind serves /metrics alone, open; the main port points there', async () => {
    const s = await serve({
      metrics: { scraper: new MetricsExposition(core), token: null, bind: { host: '127.0.0.1', port: 0 } },
    });
    const mport = Number(new URL(s.metricsUrl!).port);
    expect(mport).not.toBe(s.port);
    const ok = await get(mport, '/metrics');
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('rlwatch_scalar{run="run1",tag="loss"} 1.5');
    expect((await get(mport, '/')).status).toBe(404);
    expect((await get(mport, `/?token=${TOKEN}`)).status).toBe(404);
    expect((await get(mport, '/ws')).status).toBe(404);
    expect((await get(mport, '//[')).status).toBe(404);
    // Bound to loopback: a DNS-rebinding page's Host is refused.
    expect((await get(mport, '/metrics', { Host: 'evil.example' })).status).toBe(421);
    const main = await get(s.port, '/metrics');
    expect(main.status).toBe(404);
    expect(main.body).toContain(s.metricsUrl!);
  });

  test('a separate bind with a token too needs the token there', async () => {
    const s = await serve({
      metrics: {
        scraper: new MetricsExposition(core),
        token: METRICS_TOKEN,
        bind: { host: '127.0.0.1', port: 0 },
      },
    });
    const mport = Number(new URL(s.metricsUrl!).port);
    expect((await get(mport, '/metrics')).status).toBe(401);
    expect((await get(mport, '/metrics', bearer(METRICS_TOKEN))).status).toBe(200);
  });

  test('agent mode (no UI): every page path is 404, even with the token; the socket and /metrics work', async () => {
    const s = await serve({
      rendererDir: null,
      metrics: { scraper: new MetricsExposition(core), token: METRICS_TOKEN },
    });
    for (const path of [
      `/?token=${TOKEN}`,
      '/index.html',
      `/index.html?token=${TOKEN}`,
      '/assets/app.js',
      '/',
    ])
      expect((await get(s.port, path)).status).toBe(404);
    expect((await get(s.port, `/?token=${TOKEN}`)).headers['set-cookie']).toBeUndefined();
    expect((await get(s.port, '/metrics', bearer(METRICS_TOKEN))).status).toBe(200);
    const wsUrl = `ws://127.0.0.1:${s.port}/ws?token=${TOKEN}`;
    const ws = new WebSocket(wsUrl, { headers: { Origin: `http://127.0.0.1:${s.port}` } });
    await new Promise((res, rej) => ws.once('open', res).once('error', rej));
    const answer = await new Promise<{ result: { ok: boolean; value: unknown } }>((res) => {
      ws.on('message', (d: Buffer) => {
        const m = decodeWire(d.toString()) as { id?: number; result?: { ok: boolean; value: unknown } };
        if (m.id === 1) res(m as never);
      });
      ws.send(JSON.stringify({ id: 1, channel: 'runs.list', args: {} }));
    });
    ws.close();
    expect(answer.result.ok).toBe(true);
    expect((answer.result.value as { run: string }[]).map((r) => r.run)).toEqual(['run1']);
  });
});

describe('metrics flags', () => {
  test('a token from the flag or RLWATCH_METRICS_TOKEN; a bind needs a port; short tokens are refused', () => {
    expect(metricsOptions({}, {})).toBeNull();
    expect(metricsOptions({ 'metrics-token': METRICS_TOKEN }, {})).toEqual({ token: METRICS_TOKEN });
    expect(metricsOptions({}, { RLWATCH_METRICS_TOKEN: METRICS_TOKEN })).toEqual({ token: METRICS_TOKEN });
    expect(metricsOptions({ 'metrics-port': '9400' }, {})).toEqual({
      token: null,
      bind: { host: '127.0.0.1', port: 9400 },
    });
    expect(() => metricsOptions({ 'metrics-token': 'short' }, {})).toThrow(UsageError);
    expect(() => metricsOptions({ 'metrics-token': 'has space in it 0123456789' }, {})).toThrow(UsageError);
    expect(() => metricsOptions({ 'metrics-host': '0.0.0.0' }, {})).toThrow(/needs --metrics-port/);
    expect(() => metricsOptions({ 'metrics-port': '99999' }, {})).toThrow(/--metrics-port must be/);
    expect(
      metricsOptions({ 'metrics-port': '0', 'metrics-max-runs': '5', 'metrics-max-tags': '7' }, {}),
    ).toEqual({
      token: null,
      bind: { host: '127.0.0.1', port: 0 },
      limits: { maxRuns: 5, maxTagsPerRun: 7 },
    });
    expect(() => metricsOptions({ 'metrics-max-tags': '7' }, {})).toThrow(/need \/metrics on/);
  });
});
