// serve sends the build's brotli/gzip copy of a renderer file as it is, else makes the copy once, shared by the requests that ask meanwhile (#36).

import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { AppBus } from '../../../src/core/app/bus';
import type { Handlers } from '../../../src/shared/contract';
import type * as ContentCoding from '../../../src/core/server/content-coding';
import { startServer, type RunningServer } from '../../../src/core/server/serve';
import { precompressFolder } from '../../../src/core/server/precompress';

const calls = vi.hoisted(() => ({ compress: [] as string[] }));
vi.mock('../../../src/core/server/content-coding', async (importActual) => {
  const actual = await importActual<typeof ContentCoding>();
  return {
    ...actual,
    compress: (body: Buffer | string, coding: 'br' | 'gzip') => {
      calls.compress.push(`${coding}:${String(body).slice(0, 20)}`);
      return actual.compress(body, coding);
    },
  };
});

const TOKEN = 'compressed-copies-token-0123456789';
const SCRIPT = `/* app */ ${'console.log("rlwatch");\n'.repeat(2000)}`;

/** GET a path with the asset cookie and `Accept-Encoding` (br by default): its status, coding, bytes and decoded body. */
function get(
  port: number,
  path: string,
  cookie: string,
  accept = 'br',
): Promise<{ status: number; coding?: string; body: string; raw: Buffer; cookie: string }> {
  return new Promise((res, rej) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, headers: { cookie, 'Accept-Encoding': accept } },
      (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => {
          const raw = Buffer.concat(chunks);
          const coding = r.headers['content-encoding'];
          res({
            status: r.statusCode!,
            coding,
            raw,
            body: String(
              coding === 'br' ? brotliDecompressSync(raw) : coding === 'gzip' ? gunzipSync(raw) : raw,
            ),
            cookie: String(r.headers['set-cookie']?.[0] ?? cookie).split(';')[0]!,
          });
        });
      },
    );
    req.on('error', rej);
    req.end();
  });
}

describe('serve compresses each file once', () => {
  let renderer: string;
  let server: RunningServer | null = null;

  beforeEach(() => {
    calls.compress.length = 0;
    renderer = mkdtempSync(join(tmpdir(), 'rlwatch-renderer-'));
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>rlwatch</title>');
    mkdirSync(join(renderer, 'assets'));
    writeFileSync(join(renderer, 'assets', 'app.js'), SCRIPT);
    writeFileSync(join(renderer, 'assets', 'app.css'), 'body { color: red }');
    writeFileSync(join(renderer, 'favicon.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  });

  afterEach(async () => {
    await server?.close();
    server = null;
    rmSync(renderer, { recursive: true, force: true });
  });

  const start = async (): Promise<RunningServer> =>
    (server = await startServer({
      bus: {} as AppBus,
      handlers: {} as Handlers,
      rendererDir: renderer,
      token: TOKEN,
      port: 0,
      log: () => {},
    }));

  test('a page opened at once shares the copies being made: each file is compressed once, and served whole', async () => {
    const s = await start();
    const page = await get(s.port, `/?token=${TOKEN}`, '');
    expect(page.status).toBe(200);
    expect(page.coding).toBe('br');
    const [a, b] = await Promise.all([
      get(s.port, '/assets/app.js', page.cookie),
      get(s.port, '/assets/app.js', page.cookie),
    ]);
    expect(a).toMatchObject({ status: 200, coding: 'br', body: SCRIPT });
    expect(b.body).toEqual(a.body);
    expect(calls.compress.filter((c) => c.startsWith('br:/* app */'))).toHaveLength(1);
    expect(calls.compress.filter((c) => c.startsWith('br:<!doctype'))).toHaveLength(1);
  });

  test("the build's brotli and gzip copies are sent byte for byte as written, and nothing is compressed", async () => {
    expect(await precompressFolder(renderer)).toHaveLength(3);
    calls.compress.length = 0;
    const s = await start();
    const page = await get(s.port, `/?token=${TOKEN}`, '');
    for (const [accept, suffix] of [
      ['br', '.br'],
      ['gzip', '.gz'],
    ] as const) {
      const js = await get(s.port, '/assets/app.js', page.cookie, accept);
      expect(js).toMatchObject({ status: 200, coding: accept, body: SCRIPT });
      expect(js.raw.equals(readFileSync(join(renderer, 'assets', `app.js${suffix}`)))).toBe(true);
    }
    expect(page.raw.equals(readFileSync(join(renderer, 'index.html.br')))).toBe(true);
    expect(calls.compress).toEqual([]);
  });

  test("without the build's copy, or with one older than its file, the file is compressed on the fly", async () => {
    await precompressFolder(renderer);
    calls.compress.length = 0;
    rmSync(join(renderer, 'assets', 'app.css.br'));
    // app.js rewritten after the build: its copy is stale (older than the file) and must not be sent.
    const later = `/* app v2 */ ${SCRIPT}`;
    writeFileSync(join(renderer, 'assets', 'app.js'), later);
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(renderer, 'assets', 'app.js.br'), past, past);
    const s = await start();
    const page = await get(s.port, `/?token=${TOKEN}`, '');
    const css = await get(s.port, '/assets/app.css', page.cookie);
    expect(css).toMatchObject({ status: 200, coding: 'br', body: 'body { color: red }' });
    const js = await get(s.port, '/assets/app.js', page.cookie);
    expect(js).toMatchObject({ status: 200, coding: 'br', body: later });
    expect(calls.compress.map((c) => c.slice(0, 14)).sort()).toEqual(['br:/* app v2 *', 'br:body { colo']);
  });
});
