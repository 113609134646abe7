// One WebSocket link to a remote rlwatch endpoint: requests with ids and timeouts, pushes, reconnects with backoff.

import type WebSocket from 'ws';
import type { EndpointState } from '../../shared/domain';
import { fail, type Result } from '../../shared/result';
import { resultShape } from '../../shared/remote-shapes';
import { decodeWire } from '../../shared/wire-codec';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from '../../shared/backoff';
import type { EndpointUrl } from './endpoint-url';

export interface LinkLimits {
  /** A request not answered within this is failed (`unavailable`): a remote that never answers costs nothing more. */
  requestTimeoutMs: number;
  /** Requests waiting for an answer; past it new ones fail at once. */
  maxPending: number;
  /** Largest message accepted from the remote; a bigger one closes the link (it reconnects with backoff). Under
   * serve's 32 MiB per local client, so one remote message forwarded can never drop a local browser. */
  maxMessageBytes: number;
  /** The remote's budget per `rateWindowMs`: bytes and messages it may send (answers and pushes alike); past
   * either the link is dropped with the reason shown, and it reconnects with a backoff that keeps growing. */
  maxBytesPerWindow: number;
  maxMessagesPerWindow: number;
  rateWindowMs: number;
  /** The opening handshake must finish within this: a deadline from the connect, not an idle timeout (a
   * remote that drips one header line at a time is given up all the same). */
  handshakeTimeoutMs: number;
  /** A ping this often; no pong by the next one and the link is dropped (a half-open connection). */
  pingMs: number;
}

export const DEFAULT_LINK_LIMITS: LinkLimits = {
  requestTimeoutMs: 15_000,
  maxPending: 256,
  maxMessageBytes: 16 * 1024 * 1024,
  maxBytesPerWindow: 64 * 1024 * 1024,
  maxMessagesPerWindow: 20_000,
  rateWindowMs: 10_000,
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

/** ws's client, loaded by the first link's first connect: a process that follows no endpoint never loads it
 * (`rlwatch serve` prints its URL sooner, #36). */
let Client: typeof WebSocket | null = null;
let loadingClient: Promise<typeof WebSocket> | null = null;
const loadClient = (): Promise<typeof WebSocket> =>
  (loadingClient ??= import('ws').then(
    (m) => (Client = m.default),
    (err: unknown) => {
      loadingClient = null; // the next retry tries again
      throw err;
    },
  ));

/** Reconnects until closed. Every entry point is total: requests always resolve to a Result. */
export class RemoteLink {
  private socket: WebSocket | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private attempt = 0;
  /** The last link was dropped for its own excess (budget, size): its retries back off to the penalty cap. */
  private penalised = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  /** Resets the backoff once a link has stayed up a while (not on open: a remote dropped for its excess
   * right after each connect keeps backing off). */
  private stableTimer: NodeJS.Timeout | null = null;
  /** The current rate window: when it began, and what the remote sent in it. */
  private windowStart = 0;
  private windowBytes = 0;
  private windowMessages = 0;
  private closed = false;
  /** Waiting for ws to load before its first connect. */
  private loading = false;
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
    if (!this.closed && this.socket === null && this.retryTimer === null && !this.loading) this.connect();
  }

  /** Stops for good: the socket closes, waiting requests fail, no more retries. */
  close(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.stableTimer) clearTimeout(this.stableTimer);
    this.socket?.terminate();
    this.socket = null;
    this.stopPing();
    this.failWaiting('the endpoint was removed');
  }

  request(channel: string, args: unknown): Promise<Result<unknown>> {
    const ws = this.socket;
    if (ws === null || ws.readyState !== ws.OPEN || this.current !== 'connected') {
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
    if (Client === null) return this.loadThenConnect();
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
    const deadline = setTimeout(() => {
      failure = `no handshake within ${this.limits.handshakeTimeoutMs} ms`;
      ws.terminate();
    }, this.limits.handshakeTimeoutMs);
    deadline.unref();
    ws.on('open', () => {
      clearTimeout(deadline);
      this.stableTimer = setTimeout(() => {
        this.attempt = 0;
        this.penalised = false;
      }, this.limits.pingMs);
      this.stableTimer.unref();
      this.windowStart = Date.now();
      this.windowBytes = this.windowMessages = 0;
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
    ws.on('message', (data, isBinary) => {
      const over = this.overBudget(rawLength(data));
      if (over === null) return this.onMessage(data, isBinary);
      this.penalised = true;
      failure ??= over;
      ws.terminate();
    });
    ws.on('error', (err) => {
      const tooBig = (err as { code?: string }).code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';
      if (tooBig) this.penalised = true;
      failure ??= tooBig ? overSize(this.limits.maxMessageBytes) : err.message;
    });
    ws.on('close', (code) => {
      clearTimeout(deadline);
      if (this.stableTimer) clearTimeout(this.stableTimer);
      this.stableTimer = null;
      if (this.socket === ws) this.socket = null;
      this.stopPing();
      if (code === 1009) this.penalised = true;
      const why = failure ?? (code === 1009 ? overSize(this.limits.maxMessageBytes) : `closed (${code})`);
      // Waiting requests say why: an answer over the size limit is refused at its frame header (never buffered).
      this.failWaiting(`${this.url.id}: connection lost (${why})`);
      if (this.closed) return;
      this.setState(authFailed ? 'auth-failed' : 'disconnected', why);
      this.scheduleRetry();
    });
  }

  private loadThenConnect(): void {
    this.loading = true;
    loadClient().then(
      () => {
        this.loading = false;
        if (!this.closed) this.connect();
      },
      (err: unknown) => {
        this.loading = false;
        if (this.closed) return;
        this.setState('disconnected', err instanceof Error ? err.message : String(err));
        this.scheduleRetry();
      },
    );
  }

  private scheduleRetry(): void {
    this.retryTimer = setTimeout(
      () => this.connect(),
      backoffDelay(this.attempt++, this.backoff, this.penalised),
    );
    this.retryTimer.unref();
  }

  private open(): WebSocket {
    return new Client!(this.url.socket, {
      // serve requires Origin = http:// + the Host it is asked for: exactly what a page it served sends.
      origin: this.url.origin,
      maxPayload: this.limits.maxMessageBytes,
      perMessageDeflate: false,
      followRedirects: false,
    });
  }

  /** Counts one message against the remote's budget: null while within it, else why the link is dropped. */
  private overBudget(bytes: number): string | null {
    const now = Date.now();
    if (now - this.windowStart >= this.limits.rateWindowMs) {
      this.windowStart = now;
      this.windowBytes = this.windowMessages = 0;
    }
    this.windowBytes += bytes;
    this.windowMessages++;
    const per = `within ${this.limits.rateWindowMs / 1000} s`;
    if (this.windowBytes > this.limits.maxBytesPerWindow)
      return `dropped: it sent over ${mib(this.limits.maxBytesPerWindow)} ${per} (its budget)`;
    if (this.windowMessages > this.limits.maxMessagesPerWindow)
      return `dropped: it sent over ${this.limits.maxMessagesPerWindow} messages ${per} (its budget)`;
    return null;
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

/** A budget in words: MiB, or KiB under one MiB (tests run with small budgets). */
const mib = (bytes: number): string =>
  bytes >= 1 << 20 ? `${+(bytes / (1 << 20)).toFixed(2)} MiB` : `${+(bytes / 1024).toFixed(2)} KiB`;
const overSize = (max: number): string => `dropped: a message over the size limit (${mib(max)})`;

/** A message's size in bytes, whatever form ws gives it in. */
function rawLength(data: WebSocket.RawData): number {
  return Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;
}

/** A message's text; a Buffer (what ws gives by default) is read in place, not copied first (answers reach 16 MiB). */
function rawText(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
