// One WebSocket link to a remote rlwatch endpoint: requests with ids and timeouts, pushes, reconnects with backoff.

import WebSocket from 'ws';
import type { EndpointState } from '../../shared/domain';
import { fail, type Result } from '../../shared/result';
import { resultShape } from '../../shared/remote-shapes';
import { decodeWire } from '../../shared/wire-codec';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff';
import type { EndpointUrl } from './endpoint-url';

export interface LinkLimits {
  /** A request not answered within this is failed (`unavailable`): a remote that never answers costs nothing more. */
  requestTimeoutMs: number;
  /** Requests waiting for an answer; past it new ones fail at once. */
  maxPending: number;
  /** Largest message accepted from the remote; a bigger one closes the link (it reconnects with backoff). */
  maxMessageBytes: number;
  /** The opening handshake must finish within this. */
  handshakeTimeoutMs: number;
  /** A ping this often; no pong by the next one and the link is dropped (a half-open connection). */
  pingMs: number;
}

export const DEFAULT_LINK_LIMITS: LinkLimits = {
  requestTimeoutMs: 15_000,
  maxPending: 256,
  maxMessageBytes: 64 * 1024 * 1024,
  handshakeTimeoutMs: 10_000,
  pingMs: 15_000,
};

export interface LinkEvents {
  /** The link (re)opened: the owner refetches what it shows. */
  opened(): void;
  /** A push {event, payload} from the remote (payload unchecked: the owner checks it per event). */
  push(event: string, payload: unknown): void;
  /** The state changed (connecting → connected → disconnected …), with why when it failed. */
  state(state: EndpointState, error: string | null): void;
  /** A message that was not a decodable answer or push (counted, never thrown). */
  garbage(): void;
}

interface Waiting {
  resolve: (r: Result<unknown>) => void;
  timer: NodeJS.Timeout;
}

/** Reconnects until closed. Every entry point is total: requests always resolve to a Result. */
export class RemoteLink {
  private socket: WebSocket | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private current: EndpointState = 'connecting';
  private readonly limits: LinkLimits;
  private readonly backoff: BackoffOptions;

  constructor(
    private readonly url: EndpointUrl,
    private readonly events: LinkEvents,
    opts: { limits?: Partial<LinkLimits>; backoff?: Partial<BackoffOptions> } = {},
  ) {
    this.limits = { ...DEFAULT_LINK_LIMITS, ...opts.limits };
    this.backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
  }

  get state(): EndpointState {
    return this.current;
  }

  start(): void {
    if (!this.closed && this.socket === null && this.retryTimer === null) this.connect();
  }

  /** Stops for good: the socket closes, waiting requests fail, no more retries. */
  close(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.socket?.terminate();
    this.socket = null;
    this.stopPing();
    this.failWaiting('the endpoint was removed');
  }

  request(channel: string, args: unknown): Promise<Result<unknown>> {
    const ws = this.socket;
    if (ws === null || ws.readyState !== WebSocket.OPEN || this.current !== 'connected') {
      return Promise.resolve(fail('unavailable', `${this.url.id} is not connected`));
    }
    if (this.waiting.size >= this.limits.maxPending) {
      return Promise.resolve(fail('unavailable', `${this.url.id}: too many requests waiting`));
    }
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve(
          fail(
            'unavailable',
            `${this.url.id} did not answer ${channel} within ${this.limits.requestTimeoutMs} ms`,
          ),
        );
      }, this.limits.requestTimeoutMs);
      this.waiting.set(id, { resolve, timer });
      ws.send(JSON.stringify({ id, channel, args }), (err) => {
        if (err) this.settle(id, fail('unavailable', `${this.url.id}: ${err.message}`));
      });
    });
  }

  private connect(): void {
    this.retryTimer = null;
    let failure: string | null = null;
    let authFailed = false;
    let ws: WebSocket;
    try {
      ws = this.open();
    } catch (err) {
      // A URL ws refuses outright: shown and retried like any failed attempt, never thrown.
      this.setState('disconnected', err instanceof Error ? err.message : String(err));
      return this.scheduleRetry();
    }
    this.socket = ws;
    ws.on('open', () => {
      this.attempt = 0;
      this.setState('connected', null);
      this.startPing(ws);
      this.events.opened();
    });
    ws.on('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      authFailed = status === 401 || status === 403;
      failure = authFailed ? `refused the token (HTTP ${status})` : `answered HTTP ${status}`;
      res.resume();
      ws.terminate();
    });
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('error', (err) => {
      failure ??= err.message;
    });
    ws.on('close', (code) => {
      if (this.socket === ws) this.socket = null;
      this.stopPing();
      this.failWaiting(`${this.url.id}: connection lost`);
      if (this.closed) return;
      const why = failure ?? (code === 1009 ? 'a message over the size limit' : `closed (${code})`);
      this.setState(authFailed ? 'auth-failed' : 'disconnected', why);
      this.scheduleRetry();
    });
  }

  private scheduleRetry(): void {
    this.retryTimer = setTimeout(() => this.connect(), backoffDelay(this.attempt++, this.backoff));
    this.retryTimer.unref();
  }

  private open(): WebSocket {
    return new WebSocket(this.url.socket, {
      // serve requires Origin = http:// + the Host it is asked for: exactly what a page it served sends.
      origin: this.url.origin,
      maxPayload: this.limits.maxMessageBytes,
      handshakeTimeout: this.limits.handshakeTimeoutMs,
      perMessageDeflate: false,
      followRedirects: false,
    });
  }

  private onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    let msg: unknown;
    try {
      if (isBinary) throw new Error('binary');
      msg = decodeWire(rawText(data));
    } catch {
      this.events.garbage();
      return;
    }
    if (typeof msg !== 'object' || msg === null) return this.events.garbage();
    const m = msg as { id?: unknown; result?: unknown; event?: unknown; payload?: unknown };
    if (typeof m.id === 'number') {
      const parsed = resultShape.safeParse(m.result);
      this.settle(
        m.id,
        parsed.success ? parsed.data : fail('internal', `${this.url.id} sent a malformed answer`),
      );
    } else if (typeof m.event === 'string') {
      this.events.push(m.event, m.payload);
    } else this.events.garbage();
  }

  private settle(id: number, r: Result<unknown>): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    clearTimeout(w.timer);
    w.resolve(r);
  }

  private failWaiting(why: string): void {
    for (const id of [...this.waiting.keys()]) this.settle(id, fail('unavailable', why));
  }

  private setState(state: EndpointState, error: string | null): void {
    // Retries while down keep "disconnected since" the moment it went down.
    if (state === this.current && state !== 'connected') return;
    this.current = state;
    this.events.state(state, error);
  }

  private startPing(ws: WebSocket): void {
    let alive = true;
    ws.on('pong', () => (alive = true));
    this.pingTimer = setInterval(() => {
      if (!alive) return ws.terminate();
      alive = false;
      ws.ping();
    }, this.limits.pingMs);
    this.pingTimer.unref();
  }

  private stopPing(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }
}

/** A message's text; a Buffer (what ws gives by default) is read in place, not copied first (answers reach 64 MiB). */
function rawText(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
