// One WebSocket client of serve: its requests answered one at a time, its queued bytes bounded.

import type { WebSocket } from 'ws';
import type { Handlers, RequestArgs } from '../../shared/contract';
import type { RunInfo } from '../../shared/domain';
import { fail } from '../../shared/result';
import { RunListFeed } from '../../shared/run-list-delta';
import { encodeWire } from '../../shared/wire-codec';
import { dispatch } from '../api/dispatch';
import type { AppBus } from '../app/bus';
import { BULK_DELTA_POINTS, forwardToRenderer } from '../app/renderer-feed';

export interface ClientLimits {
  /** Bytes the server may hold for a client that does not read; past it the client is dropped. */
  maxQueuedBytes: number;
  /** Requests waiting for their turn; past it the client is dropped (a flood, not a dashboard). */
  maxPendingRequests: number;
  /** Bytes of waiting requests one client may hold (the count alone let 512 messages of 1 MiB wait). */
  maxPendingBytes: number;
  /** How long a client may leave half its byte budget unread before its next answer is given up. */
  stallMs: number;
  /** Series one client may follow (`series.follow`); past it the client gets every series again (its memory bounded). */
  maxFollowedSeries: number;
  /** ms of answering one client's waiting requests back to back before the next turn of the event loop (0: one
   * request a turn). */
  answerTurnMs: number;
}

export const DEFAULT_CLIENT_LIMITS: ClientLimits = {
  maxQueuedBytes: 32 * 1024 * 1024,
  // A page's burst is small requests, many: a 50-run sweep's 9 charts follow and ask 900 series at once (#36: past
  // 512 the page was dropped, reconnected and dropped again under load). Its bytes bound the memory.
  maxPendingRequests: 4096,
  maxPendingBytes: 16 * 1024 * 1024,
  stallMs: 30_000,
  maxFollowedSeries: 100_000,
  answerTurnMs: 8,
};

/** What of a net.Socket holds writes back: `cork` until as many `uncork`s. */
export interface Corkable {
  cork(): void;
  uncork(): void;
}

const yieldToOthers = (): Promise<void> => new Promise((res) => setImmediate(res));
const sleep = (ms: number): Promise<void> => new Promise((res) => setTimeout(res, ms));

/**
 * Wire protocol: the client sends {id, channel, args}; the server answers {id, result} and pushes
 * {event, payload}. Requests of one client run in order, one at a time, answered back to back for up to
 * `answerTurnMs` and then a turn of the event loop, so a client that floods requests cannot starve another,
 * and a page's first screen (a few dozen small requests sent at once) is not answered a request a turn with
 * background work (a first read's judging, the system sampler) run between each (#36 target 1). Answers wait while the
 * client leaves half its byte budget unread; a client over budget is dropped, never buffered without
 * bound (it reconnects and refetches, as after any disconnect).
 */
export function attachClient(
  ws: WebSocket,
  opts: {
    bus: AppBus;
    handlers: Handlers;
    log: (message: string) => void;
    limits?: Partial<ClientLimits>;
    /** The connection under `ws` (the upgrade's socket): held corked from a turn's first message to the next turn,
     * so the turn's messages leave in one write, not a write each (a read of one run pushes a delta per followed
     * tag: with 50 live runs, thousands of writes a second were serve's largest system time, #36). */
    socket?: Corkable;
  },
): void {
  const limits = { ...DEFAULT_CLIENT_LIMITS, ...opts.limits };
  const pending: Array<{ text: string; isBinary: boolean }> = [];
  let pendingBytes = 0;
  let draining = false;
  let dropped = false;
  let corked = false;
  const socket = opts.socket;
  const uncork = (): void => {
    if (!corked) return;
    corked = false;
    socket?.uncork();
  };

  const drop = (why: string): void => {
    if (dropped) return;
    dropped = true;
    pending.length = 0;
    pendingBytes = 0;
    opts.log(`dropped a client: ${why}`);
    ws.terminate();
  };
  const send = (message: unknown): void => {
    if (dropped || ws.readyState !== ws.OPEN) return;
    const text = encodeWire(message);
    if (ws.bufferedAmount + text.length > limits.maxQueuedBytes) {
      drop(`it did not read ${ws.bufferedAmount} queued bytes`);
      return;
    }
    if (socket && !corked) {
      corked = true;
      socket.cork();
      setImmediate(uncork);
    }
    ws.send(text);
  };

  /** The series this client said it follows (`series.follow`), by `run\0tag`; null until it says, and for good once it
   * follows more than its limit: it gets them all. */
  let followed: Set<string> | null = null;
  let saidAny = false;
  const follow = (args: RequestArgs['series.follow']): void => {
    if (!saidAny) followed = new Set();
    saidAny = true;
    if (followed === null) return;
    const key = `${args.run}\u0000${args.tag}`;
    if (!args.follow) followed.delete(key);
    else if (followed.size < limits.maxFollowedSeries) followed.add(key);
    else followed = null;
  };
  /** After a runs.list answer asked with `deltas`, this client's run lists go out as changes (#36: a 10k-run list
   * is 2.85 MB, pushed every few seconds while a folder loads). */
  const runList = new RunListFeed();
  const unsubscribe = forwardToRenderer(
    opts.bus,
    (m) => send(m.event === 'runs.changed' ? { event: m.event, payload: runList.push(m.payload) } : m),
    BULK_DELTA_POINTS,
    (run, tag) => followed === null || followed.has(`${run}\u0000${tag}`),
  );

  const drain = async (): Promise<void> => {
    draining = true;
    try {
      let turn = performance.now();
      while (pending.length > 0 && !dropped) {
        if (!(await roomToAnswer())) return drop(`it left its answers unread for ${limits.stallMs} ms`);
        // Dropped while it waited for room (a flood past the request limit empties `pending`): nothing to answer.
        const next = pending.shift();
        if (!next || dropped) return;
        pendingBytes -= next.text.length;
        const reply = await answer(opts.handlers, next.text, next.isBinary, follow);
        // The stream's list 0 is this answer: no push may come between the two (a push made from it is sent after).
        if (reply.deltasFrom) runList.answered(reply.deltasFrom);
        send({ id: reply.id, result: reply.result });
        if (pending.length === 0 || performance.now() - turn >= limits.answerTurnMs) {
          await yieldToOthers();
          turn = performance.now();
        }
      }
    } finally {
      draining = false;
    }
  };
  const roomToAnswer = async (): Promise<boolean> => {
    // Bytes held by this turn's cork are not bytes the client left unread: they leave now, then the room is judged
    // (held answers read as unread made the drain wait while a page's burst of requests passed the limit, #36).
    uncork();
    const since = Date.now();
    while (ws.bufferedAmount > limits.maxQueuedBytes / 2) {
      if (dropped || ws.readyState !== ws.OPEN) return false;
      if (Date.now() - since > limits.stallMs) return false;
      await sleep(25);
    }
    return true;
  };

  ws.on('message', (data, isBinary) => {
    if (dropped) return;
    if (pending.length >= limits.maxPendingRequests) {
      return drop(`more than ${limits.maxPendingRequests} requests waiting`);
    }
    const text = data.toString();
    if (pendingBytes + text.length > limits.maxPendingBytes) {
      return drop(`more than ${limits.maxPendingBytes} bytes of requests waiting`);
    }
    pendingBytes += text.length;
    pending.push({ text, isBinary });
    if (!draining) {
      drain().catch((err: unknown) => {
        opts.log(`socket request failed: ${err instanceof Error ? err.message : String(err)}`);
        drop('a request failed inside the server');
      });
    }
  });
  ws.on('close', () => {
    dropped = true;
    pending.length = 0;
    pendingBytes = 0;
    unsubscribe();
  });
  ws.on('error', () => ws.terminate());
}

/** One request's id (echoed in the answer; null when it has none) and its result; a valid `series.follow` is
 * handed to `follow` (the client's own state, kept here); a runs.list asked with `deltas` gives its list as
 * `deltasFrom`. */
async function answer(
  handlers: Handlers,
  text: string,
  isBinary: boolean,
  follow: (args: RequestArgs['series.follow']) => void,
): Promise<{ id: string | number | null; result: unknown; deltasFrom?: RunInfo[] }> {
  let msg: unknown;
  try {
    msg = isBinary ? undefined : JSON.parse(text);
  } catch {
    msg = undefined;
  }
  const rawId = typeof msg === 'object' && msg !== null && 'id' in msg ? (msg as { id: unknown }).id : null;
  const id = typeof rawId === 'number' || typeof rawId === 'string' ? rawId : null;
  if (typeof msg !== 'object' || msg === null || id === null) {
    return { id, result: fail('bad-request', 'expected a JSON object {id, channel, args}') };
  }
  const m = msg as { channel?: unknown; args?: unknown };
  const result = await dispatch(handlers, m.channel, m.args);
  // Validated by dispatch: the arguments are the contract's.
  if (result.ok && m.channel === 'series.follow') follow(m.args as RequestArgs['series.follow']);
  if (result.ok && m.channel === 'runs.list' && (m.args as RequestArgs['runs.list']).deltas)
    return { id, result, deltasFrom: result.value as RunInfo[] };
  return { id, result };
}
