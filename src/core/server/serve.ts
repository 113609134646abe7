// `rlwatch serve`: the built renderer over HTTP and the contract over a WebSocket, on 127.0.0.1 with a token.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ServerOptions, WebSocketServer } from 'ws';
import type { Handlers } from '../../shared/contract';
import type { AppBus } from '../app/bus';
import { allowedHostNames, hostAllowed, originMatches } from './host-guard';
import { closeHttp, listen, urlHost } from './listen';
import type { attachClient, ClientLimits } from './socket-client';
import { assetCookie, assetCookieName, assetPass, queryToken, requestCookie, sameToken } from './token';
import { isPagePath, rendererPathFor, securityHeaders, sendFile } from './static-files';
import {
  answerMetrics,
  METRICS_PATH,
  startMetricsServer,
  type MetricsAccess,
  type MetricsElsewhere,
  type MetricsScraper,
  type MetricsServer,
} from './metrics-endpoint';

export interface ServeOptions {
  /** The AppCore's bus: every push event, turned into renderer messages (bulk deltas become resets). */
  bus: AppBus;
  handlers: Handlers;
  /** The built renderer; null serves no UI (`rlwatch agent`): every page path is 404, the API and /metrics stay. */
  rendererDir: string | null;
  token: string;
  /** /metrics (Prometheus): behind its own bearer token on this port, and/or alone on a separate bind. */
  metrics?: {
    scraper: MetricsScraper;
    /** `Authorization: Bearer` token; null: none (then /metrics on this port is a 404 with a hint). */
    token: string | null;
    /** A separate address answering /metrics only (open unless `token` is set). */
    bind?: { host: string; port: number };
  };
  host?: string;
  port?: number;
  /** Largest accepted WebSocket message; requests are small. */
  maxMessageBytes?: number;
  /** Per-client bounds on queued answer bytes and waiting requests. */
  clientLimits?: Partial<ClientLimits>;
  /** Where a request that failed inside the server is reported (it still gets a status code). */
  log?: (message: string) => void;
}

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  /** Where Prometheus scrapes, null when /metrics is off. */
  metricsUrl: string | null;
  close(): Promise<void>;
}

/** What serves the WebSocket API, loaded after the server listens. */
interface SocketApi {
  wss: WebSocketServer;
  attachClient: typeof attachClient;
}

const WS_PATH = '/ws';
/** Most fragments one WebSocket message may arrive in (ws's default is 16384). */
export const MAX_FRAGMENTS = 256;

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  const allowed = allowedHostNames(host);
  const log = opts.log ?? ((m: string) => process.stderr.write(`rlwatch: ${m}\n`));
  // Requests are small JSON: a message in more than a few fragments is a flood (CVE-2026-48779/-62389).
  // (`maxFragments` is newer than @types/ws 8.18: typed here.)
  const wsOptions: ServerOptions & { maxFragments: number } = {
    noServer: true,
    maxPayload: opts.maxMessageBytes ?? 1 << 20,
    maxFragments: MAX_FRAGMENTS,
  };
  // The WebSocket API (ws, the request dispatch and its contract's schemas) loads once the server listens, not before
  // serve prints its URL: the page asks for its socket only after it has loaded (#36). An upgrade waits for it.
  let wss: WebSocketServer | null = null;
  let closed = false;
  let socketApi: Promise<SocketApi> | null = null;
  const loadSocketApi = (): Promise<SocketApi> =>
    (socketApi ??= Promise.all([import('ws'), import('./socket-client')]).then(([ws, client]) => {
      wss = new ws.WebSocketServer(wsOptions);
      wss.on('error', (err) => log(`websocket server: ${describeError(err)}`));
      return { wss, attachClient: client.attachClient };
    }));
  // What every request checks against, computed once (the cookie name needs the port: set on listen).
  const access: MetricsAccess | null = opts.metrics
    ? { scraper: opts.metrics.scraper, token: opts.metrics.token }
    : null;
  const ctx = {
    ...opts,
    port: 0,
    allowed,
    pass: assetPass(opts.token),
    access,
    elsewhere: { kind: 'off' } as MetricsElsewhere,
  };
  const server = createServer((req, res) => {
    // Total: whatever a handler throws becomes a 500 for this request, never an unhandled rejection.
    handleHttp(req, res, ctx).catch((err: unknown) => {
      log(`request failed: ${describeError(err)}`);
      if (!res.headersSent) res.writeHead(500, securityHeaders()).end();
      else res.destroy();
    });
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refuse = (status: string): void => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    const failed = (err: unknown): void => {
      log(`upgrade failed: ${describeError(err)}`);
      refuse('500 Internal Server Error');
    };
    socket.on('error', () => socket.destroy());
    try {
      const why = upgradeRefusal(req, opts.token, allowed);
      if (why !== null) return refuse(why);
    } catch (err) {
      return failed(err);
    }
    // The handshake is answered once the API has loaded (the client is attached as it opens, so nothing the page
    // sends is missed); a server closed meanwhile drops it.
    loadSocketApi()
      .then((api) => {
        if (closed) return socket.destroy();
        api.wss.handleUpgrade(req, socket, head, (ws) =>
          api.attachClient(ws, {
            bus: opts.bus,
            handlers: opts.handlers,
            log,
            limits: opts.clientLimits,
            socket,
          }),
        );
      })
      .catch(failed);
  });

  const port = await listen(server, host, opts.port ?? 0);
  // Loading starts now, behind the URL being printed, so it is done by the time a page connects.
  loadSocketApi().catch(() => {
    // Said at the upgrade that needs it.
  });
  ctx.port = port;
  const shownHost = urlHost(host);
  let metricsServer: MetricsServer | null = null;
  if (access && opts.metrics?.bind) {
    try {
      metricsServer = await startMetricsServer({ access, ...opts.metrics.bind, log });
    } catch (err) {
      closed = true;
      await closeServer(server, wss);
      throw err;
    }
    ctx.elsewhere = { kind: 'bind', url: metricsServer.url };
  }
  const metricsUrl =
    metricsServer?.url ?? (access?.token != null ? `http://${shownHost}:${port}${METRICS_PATH}` : null);
  return {
    url: `http://${shownHost}:${port}/?token=${opts.token}`,
    host,
    port,
    metricsUrl,
    close: async () => {
      closed = true;
      await Promise.all([closeServer(server, wss), metricsServer?.close()]);
    },
  };
}

/**
 * Why a WebSocket upgrade is refused (a status line), or null to accept. The socket is the API: it
 * takes the token from its own URL only (never the cookie, which every 127.0.0.1 server receives), a
 * Host this server is bound to (DNS rebinding), and an Origin that is this server as the page saw it.
 */
function upgradeRefusal(req: IncomingMessage, token: string, allowed: ReadonlySet<string>): string | null {
  const url = parseRequestUrl(req.url);
  if (url === null) return '400 Bad Request';
  if (!hostAllowed(req.headers.host, allowed)) return '421 Misdirected Request';
  if (url.pathname !== WS_PATH) return '404 Not Found';
  if (!sameToken(token, queryToken(url))) return '403 Forbidden';
  if (!originMatches(req.headers.origin, req.headers.host)) return '403 Forbidden';
  return null;
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

function closeServer(server: Server, wss: WebSocketServer | null): Promise<void> {
  if (wss !== null) {
    for (const c of wss.clients) c.terminate();
    wss.close();
  }
  return closeHttp(server);
}

const TEXT = { 'Content-Type': 'text/plain; charset=utf-8' };

async function handleHttp(
  req: IncomingMessage,
  res: ServerResponse,
  opts: ServeOptions & {
    port: number;
    allowed: ReadonlySet<string>;
    pass: string;
    access: MetricsAccess | null;
    elsewhere: MetricsElsewhere;
  },
): Promise<void> {
  const url = parseRequestUrl(req.url);
  if (url === null) {
    res.writeHead(400, { ...TEXT, ...securityHeaders() }).end('bad request\n');
    return;
  }
  if (!hostAllowed(req.headers.host, opts.allowed)) {
    res
      .writeHead(421, { ...TEXT, ...securityHeaders() })
      .end('rlwatch: this server answers only to the host names it is bound to.\n');
    return;
  }
  // Scrapers cannot follow the page-token flow: /metrics has its own token (or its own bind), never the page's.
  if (url.pathname === METRICS_PATH) return answerMetrics(req, res, opts.access, opts.elsewhere);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', ...securityHeaders() }).end();
    return;
  }
  if (opts.rendererDir === null) {
    res
      .writeHead(404, { ...TEXT, ...securityHeaders() })
      .end(
        'rlwatch agent serves no UI: add this endpoint (its URL with ?token=) to `rlwatch serve` or the app.\n',
      );
    return;
  }
  const withToken = sameToken(opts.token, queryToken(url));
  const withPass = sameToken(opts.pass, requestCookie(req, assetCookieName(opts.port)));
  if (!withToken && !withPass) {
    res
      .writeHead(401, { ...TEXT, ...securityHeaders() })
      .end(
        'rlwatch: missing or wrong token. Open the full URL that `rlwatch serve` printed (it ends in ?token=…).\n',
      );
    return;
  }
  const path = rendererPathFor(opts.rendererDir, url.pathname);
  const cookie: Record<string, string> = isPagePath(url.pathname)
    ? { 'Set-Cookie': assetCookie(opts.port, opts.token) }
    : {};
  if (path && (await sendFile(res, path, cookie, req.headers['accept-encoding']))) return;
  res.writeHead(404, { ...TEXT, ...securityHeaders() }).end('not found\n');
}
