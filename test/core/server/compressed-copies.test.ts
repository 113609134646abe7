// serve makes each renderer file's brotli copy once, shared by the requests that ask while it is being made (#36).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { AppBus } from '../../../src/core/app/bus';
import type { Handlers } from '../../../src/shared/contract';
import type * as ContentCoding from '../../../src/core/server/content-coding';
import { startServer, type RunningServer } from '../../../src/core/server/serve';

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

/** GET a path with the asset cookie and `Accept-Encoding: br`: its status, coding and decoded body. */
function get(
  port: number,
  path: string,
  cookie: string,
): Promise<{ status: number; coding?: string; body: string; cookie: string }> {
  return new Promise((res, rej) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, headers: { cookie, 'Accept-Encoding': 'br' } },
      (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => {
          const raw = Buffer.concat(chunks);
          const coding = r.headers['content-encoding'];
          res({
            status: r.statusCode!,
            coding,
            body: String(coding === 'br' ? brotliDecompressSync(raw) : raw),
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
    expect(b).toEqual(a);
    expect(calls.compress.filter((c) => c.startsWith('br:/* app */'))).toHaveLength(1);
    expect(calls.compress.filter((c) => c.startsWith('br:<!doctype'))).toHaveLength(1);
  });
});
