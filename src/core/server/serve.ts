// `rlwatch serve`: the built renderer over HTTP and the contract over a WebSocket, on 127.0.0.1 with a token.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { fail } from '../../shared/result';
import { dispatch } from '../api/dispatch';
import type { Handlers } from '../../shared/contract';
import type { AppBus } from '../app/bus';
import { forwardToRenderer } from '../app/renderer-feed';
import { requestToken, sameToken, TOKEN_COOKIE } from './token';
import { encodeWire } from '../../shared/wire-codec';
import { resolveInside, securityHeaders, sendFile } from './static-files';

export interface ServeOptions {
  /** Where a request that failed inside the server is reported (it still gets a status code). */
  log?: (message: string) => void;
  /** The AppCore's bus: every push event, turned into renderer messages (bulk deltas become resets). */
  bus: AppBus;
  handlers: Handlers;
  rendererDir: string;
  token: string;
  host?: string;
  port?: number;
  /** Largest accepted WebSocket message; requests are small. */
  maxMessageBytes?: number;
}

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  close(): Promise<void>;
}

const WS_PATH = '/ws';

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxMessageBytes ?? 1 << 20 });
  const log = opts.log ?? ((m: string) => process.stderr.write(`rlwatch: ${m}\n`));
  const server = createServer((req, res) => {
    // Total: whatever a handler throws becomes a 500 for this request, never an unhandled rejection.
    handleHttp(req, res, opts).catch((err: unknown) => {
      log(`request failed: ${describeError(err)}`);
      if (!res.headersSent) res.writeHead(500, securityHeaders()).end();
      else res.destroy();
    });
  });
  wss.on('error', (err) => log(`websocket server: ${describeError(err)}`));

  server.on('upgrade', (req, socket, head) => {
    const refuse = (status: string): void => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    socket.on('error', () => socket.destroy());
    try {
      upgrade(req, socket, head, refuse, (ws) => attachSocket(ws, opts, log));
    } catch (err) {
      log(`upgrade failed: ${describeError(err)}`);
      refuse('500 Internal Server Error');
    }
  });

  function upgrade(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    refuse: (status: string) => void,
    accept: (ws: WebSocket) => void,
  ): void {
    const url = parseRequestUrl(req.url);
    if (url === null) return refuse('400 Bad Request');
    if (url.pathname !== WS_PATH) return refuse('404 Not Found');
    if (!sameToken(opts.token, requestToken(req, url))) return refuse('403 Forbidden');
    // A page from another origin must not drive the socket even if it learned the token.
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${req.headers.host ?? ''}`) return refuse('403 Forbidden');
    wss.handleUpgrade(req, socket, head, accept);
  }

  const port = await listen(server, host, opts.port ?? 0);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/?token=${opts.token}`,
    host,
    port,
    close: () => closeServer(server, wss),
  };
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((res, rej) => {
    server.once('error', rej);
    server.listen(port, host, () => {
      server.off('error', rej);
      res((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server, wss: WebSocketServer): Promise<void> {
  for (const c of wss.clients) c.terminate();
  wss.close();
  server.closeAllConnections();
  return new Promise((res) => server.close(() => res()));
}

/** The request target as a URL, or null when it cannot be one (`//`, `//[`, garbage). */
export function parseRequestUrl(target: string | undefined): URL | null {
  const path = target ?? '/';
  // Only origin-form targets ("/…") are served; `//host` would otherwise parse as an authority.
  if (!path.startsWith('/') || path.startsWith('//')) return null;
  try {
    return new URL(path, 'http://localhost');
  } catch {
    return null;
  }
}

function describeError(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

async function handleHttp(req: IncomingMessage, res: ServerResponse, opts: ServeOptions): Promise<void> {
  const url = parseRequestUrl(req.url);
  if (url === null) {
    res
      .writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', ...securityHeaders() })
      .end('bad request\n');
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', ...securityHeaders() }).end();
    return;
  }
  if (!sameToken(opts.token, requestToken(req, url))) {
    res
      .writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8', ...securityHeaders() })
      .end(
        'rlwatch: missing or wrong token. Open the full URL that `rlwatch serve` printed (it ends in ?token=…).\n',
      );
    return;
  }
  const isPage = url.pathname === '/' || url.pathname === '/index.html';
  const path = isPage ? join(opts.rendererDir, 'index.html') : resolveInside(opts.rendererDir, url.pathname);
  const cookie: Record<string, string> = isPage
    ? { 'Set-Cookie': `${TOKEN_COOKIE}=${encodeURIComponent(opts.token)}; HttpOnly; SameSite=Strict; Path=/` }
    : {};
  if (path && (await sendFile(res, path, cookie))) return;
  res
    .writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', ...securityHeaders() })
    .end('not found\n');
}

/** Wire protocol: client sends {id, channel, args}; server answers {id, result} and pushes {event, payload}. */
function attachSocket(ws: WebSocket, opts: ServeOptions, log: (message: string) => void): void {
  const unsubscribe = forwardToRenderer(opts.bus, (message) => {
    if (ws.readyState === ws.OPEN) ws.send(encodeWire(message));
  });
  ws.on('message', (data, isBinary) => {
    answer(ws, opts.handlers, data.toString(), isBinary).catch((err: unknown) => {
      log(`socket message failed: ${describeError(err)}`);
      ws.terminate();
    });
  });
  ws.on('close', () => unsubscribe());
  ws.on('error', () => ws.terminate());
}

async function answer(ws: WebSocket, handlers: Handlers, text: string, isBinary: boolean): Promise<void> {
  let msg: unknown;
  try {
    msg = isBinary ? undefined : JSON.parse(text);
  } catch {
    msg = undefined;
  }
  const id = typeof msg === 'object' && msg !== null && 'id' in msg ? (msg as { id: unknown }).id : null;
  const validId = typeof id === 'number' || typeof id === 'string' ? id : null;
  const result =
    typeof msg !== 'object' || msg === null || validId === null
      ? fail('bad-request', 'expected a JSON object {id, channel, args}')
      : await dispatch(handlers, (msg as { channel?: unknown }).channel, (msg as { args?: unknown }).args);
  if (ws.readyState === ws.OPEN) ws.send(encodeWire({ id: validId, result }));
}
