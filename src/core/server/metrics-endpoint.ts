// `/metrics` over HTTP: on serve's port behind its own bearer token, or open on a separate bind for scrapers.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { acceptedCodings, compress } from './content-coding';
import { allowedHostNames, hostAllowed } from './host-guard';
import { closeHttp, listen, urlHost } from './listen';
import { sameToken } from './token';

export const METRICS_PATH = '/metrics';

/** What serves a scrape (core/metrics' MetricsExposition). */
export interface MetricsScraper {
  scrape(): Promise<{ contentType: string; body: string }>;
}

export interface MetricsAccess {
  scraper: MetricsScraper;
  /** A scraper must send `Authorization: Bearer TOKEN`; null: no token (the page token never opens /metrics). */
  token: string | null;
}

const TEXT = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' };

/** Where /metrics is when it is not on this port, for the hint a scraper (or a person with curl) reads. */
export type MetricsElsewhere = { kind: 'off' } | { kind: 'bind'; url: string };

/**
 * Answers a request for /metrics on serve's own port (its Host already checked): 200 with a valid bearer
 * token; 401 with a wrong or missing one; 404 with a hint when no token is set here.
 */
export async function answerMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  access: MetricsAccess | null,
  elsewhere: MetricsElsewhere,
): Promise<void> {
  if (access === null || access.token === null) {
    const hint =
      elsewhere.kind === 'bind'
        ? `rlwatch: metrics are served at ${elsewhere.url}\n`
        : 'rlwatch: /metrics is off on this port: start with --metrics-token TOKEN (or RLWATCH_METRICS_TOKEN) and scrape with "Authorization: Bearer TOKEN", or with --metrics-host/--metrics-port for a separate bind.\n';
    res.writeHead(404, TEXT).end(hint);
    return;
  }
  await answerScrape(req, res, access);
}

/** A scrape with the token checked (when one is set), GET or HEAD only. */
async function answerScrape(req: IncomingMessage, res: ServerResponse, access: MetricsAccess): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { ...TEXT, Allow: 'GET, HEAD' }).end();
    return;
  }
  if (access.token !== null && !sameToken(access.token, bearerToken(req))) {
    res
      .writeHead(401, { ...TEXT, 'WWW-Authenticate': 'Bearer realm="rlwatch metrics"' })
      .end(
        'rlwatch: /metrics needs "Authorization: Bearer TOKEN" with the --metrics-token it was started with.\n',
      );
    return;
  }
  const { contentType, body } = await access.scraper.scrape();
  // Prometheus asks for gzip: a 100-run × 500-tag exposition is megabytes of text, a tenth of that gzipped.
  const zipped = acceptsGzip(req) ? await compress(body, 'gzip') : null;
  res.writeHead(200, {
    'Content-Type': contentType,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    Vary: 'Accept-Encoding',
    ...(zipped ? { 'Content-Encoding': 'gzip' } : {}),
  });
  res.end(req.method === 'HEAD' ? undefined : (zipped ?? body));
}

/** Whether the request's Accept-Encoding takes gzip (`gzip` or `*`, not with q=0): what Prometheus sends. */
export function acceptsGzip(req: Pick<IncomingMessage, 'headers'>): boolean {
  return acceptedCodings(req.headers['accept-encoding']).includes('gzip');
}

/** The token of an `Authorization: Bearer …` header (scheme case-insensitive), or null. */
export function bearerToken(req: IncomingMessage): string | null {
  const h = req.headers.authorization;
  if (typeof h !== 'string' || h.length > 1024) return null;
  const m = /^bearer +(\S+) *$/i.exec(h);
  return m ? m[1]! : null;
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * /metrics alone on its own address (for a scraper on the cluster network), open unless a token is set,
 * every other path 404. Bound to loopback it answers only loopback host names (a browser page using DNS
 * rebinding cannot read it); bound elsewhere it is open to that network on purpose, so any Host is answered.
 */
export async function startMetricsServer(opts: {
  access: MetricsAccess;
  host: string;
  port: number;
  log: (message: string) => void;
}): Promise<MetricsServer> {
  const guarded = isLoopback(opts.host) ? allowedHostNames(opts.host) : null;
  const server = createServer((req, res) => {
    handle(req, res, opts.access, guarded).catch((err: unknown) => {
      opts.log(
        `metrics request failed: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`,
      );
      if (!res.headersSent) res.writeHead(500, TEXT).end();
      else res.destroy();
    });
  });
  const port = await listen(server, opts.host, opts.port);
  return {
    url: `http://${urlHost(opts.host)}:${port}${METRICS_PATH}`,
    close: () => closeHttp(server),
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  access: MetricsAccess,
  guarded: ReadonlySet<string> | null,
): Promise<void> {
  if (guarded !== null && !hostAllowed(req.headers.host, guarded)) {
    res.writeHead(421, TEXT).end('rlwatch: this server answers only to the host names it is bound to.\n');
    return;
  }
  const target = req.url ?? '';
  const path = target.split('?')[0];
  if (path !== METRICS_PATH) {
    res.writeHead(404, TEXT).end('rlwatch: only /metrics is served here.\n');
    return;
  }
  await answerScrape(req, res, access);
}

export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
