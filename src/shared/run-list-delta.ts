// The run list as a stream of changes: what a page that asked runs.list with `deltas` is pushed (the runs added,
// changed and removed since the list before), how a push is made on the server and applied on the page.

import type { RunInfo } from './domain';

/**
 * One runs.changed push to a client in delta mode. A client's stream starts at its runs.list answer (list 0); each
 * push names the list it changes (`base`) and its own number (`seq`). With 10k runs a whole list is 2.85 MB of JSON
 * to encode, send and decode; a change of a few runs is a few hundred bytes (#36).
 */
export interface RunListPush {
  seq: number;
  /** The list this one changes; null: a whole list (`changed` is every run, in order). */
  base: number | null;
  /** Runs new or changed since `base`, in list order. */
  changed: RunInfo[];
  /** Names of runs gone since `base`. */
  removed: string[];
  /** Every run's name in list order, when runs came or went or the order moved; absent: the base's order. */
  order?: string[];
}

/** What runs.changed carries to a renderer: a whole list (a client that did not ask for deltas, Electron's IPC) or a
 * push of its delta stream. */
export type RunsChangedPayload = RunInfo[] | RunListPush;

/** Why a push cannot be applied: the client then asks runs.list again (a full resync). */
export class RunListDeltaError extends Error {
  constructor(
    readonly reason: 'out-of-step' | 'malformed',
    message: string,
  ) {
    super(message);
    this.name = 'RunListDeltaError';
  }
}

/** Whether two JSON-like values are the same: what JSON text would say (an undefined property is no property). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.prototype) return false;
  if (Object.getPrototypeOf(b) !== Object.prototype) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    if (x[k] === undefined) continue;
    n++;
    if (!sameJson(x[k], y[k])) return false;
  }
  for (const k in y) if (y[k] !== undefined) n--;
  return n === 0;
}

/** Above this share of the list changed, a whole list is pushed instead (it is no larger, and simpler to apply). */
const WHOLE_LIST_SHARE = 0.5;

/** The push that turns `base` (list `baseSeq`) into `next` (list `seq`): a delta, or a whole list where most runs
 * changed or a name is listed twice (a delta names runs by name). */
export function diffRunLists(
  base: readonly RunInfo[],
  baseSeq: number,
  next: readonly RunInfo[],
  seq: number,
): RunListPush {
  const whole: RunListPush = { seq, base: null, changed: [...next], removed: [] };
  const before = new Map<string, RunInfo>();
  for (const r of base) before.set(r.run, r);
  if (before.size !== base.length) return whole;
  const names = new Set<string>();
  const changed: RunInfo[] = [];
  let sameOrder = next.length === base.length;
  for (let i = 0; i < next.length; i++) {
    const r = next[i]!;
    if (names.has(r.run)) return whole;
    names.add(r.run);
    if (sameOrder && base[i]!.run !== r.run) sameOrder = false;
    const old = before.get(r.run);
    if (old === undefined || !sameJson(old, r)) changed.push(r);
  }
  if (changed.length > next.length * WHOLE_LIST_SHARE && changed.length > 1) return whole;
  const removed = base.filter((r) => !names.has(r.run)).map((r) => r.run);
  return {
    seq,
    base: baseSeq,
    changed,
    removed,
    ...(sameOrder ? {} : { order: next.map((r) => r.run) }),
  };
}

/** A client's run list as its stream left it (list `seq`). */
export interface RunListState {
  seq: number;
  runs: RunInfo[];
}

/** `state` with `push` applied; throws RunListDeltaError when the push does not follow `state` or does not hold
 * together (a name twice, a removed or ordered run it does not know, a new run with no order): never a wrong list. */
export function applyRunListPush(state: RunListState | null, push: RunListPush): RunListState {
  if (push.base === null) {
    unique(push.changed.map((r) => r.run));
    return { seq: push.seq, runs: push.changed };
  }
  if (state === null || state.seq !== push.base)
    throw new RunListDeltaError(
      'out-of-step',
      `a change of list ${push.base} arrived at list ${state === null ? 'none' : state.seq}`,
    );
  const byName = new Map<string, RunInfo>();
  for (const r of state.runs) byName.set(r.run, r);
  for (const name of push.removed)
    if (!byName.delete(name))
      throw new RunListDeltaError('malformed', `removes ${name}, which is not listed`);
  unique(push.changed.map((r) => r.run));
  for (const r of push.changed) {
    if (!byName.has(r.run) && push.order === undefined)
      throw new RunListDeltaError('malformed', `adds ${r.run} without saying where it goes`);
    byName.set(r.run, r);
  }
  if (push.order === undefined) {
    if (push.removed.length > 0)
      throw new RunListDeltaError('malformed', 'removes runs without saying the order left');
    return { seq: push.seq, runs: state.runs.map((r) => byName.get(r.run)!) };
  }
  unique(push.order);
  if (push.order.length !== byName.size)
    throw new RunListDeltaError('malformed', `orders ${push.order.length} runs of ${byName.size}`);
  const runs = push.order.map((name) => {
    const r = byName.get(name);
    if (r === undefined) throw new RunListDeltaError('malformed', `orders ${name}, which is not listed`);
    return r;
  });
  return { seq: push.seq, runs };
}

function unique(names: readonly string[]): void {
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) throw new RunListDeltaError('malformed', `lists ${n} twice`);
    seen.add(n);
  }
}

/**
 * The page's side of the stream: the runs.list answer (list 0) and each push after it, applied in order. A push
 * that cannot be applied leaves no list (`take` answers null): the page asks runs.list again, and pushes until its
 * answer are dropped (they follow a list the page does not have).
 */
export class RunListStream {
  private state: RunListState | null = null;

  /** The list as the stream has it now; null before an answer, or after a push that could not be applied. */
  get runs(): RunInfo[] | null {
    return this.state?.runs ?? null;
  }

  /** The runs.list answer to a request with `deltas`: list 0 of the stream. */
  answered(runs: RunInfo[]): void {
    this.state = { seq: 0, runs };
  }

  /** The list after `payload`, or null when it could not be applied (`onError` says why, once per break). */
  take(payload: RunsChangedPayload, onError: (e: RunListDeltaError) => void): RunInfo[] | null {
    if (Array.isArray(payload)) return payload;
    const broken = this.state === null;
    try {
      this.state = applyRunListPush(this.state, payload);
      return this.state.runs;
    } catch (e) {
      this.state = null;
      if (!(e instanceof RunListDeltaError)) throw e;
      if (!broken || payload.base === null) onError(e);
      return null;
    }
  }
}

/**
 * The server's side for one client: after a runs.list answer with `deltas` (`answered`), each list is pushed as the
 * change from the list before. Until then (an older page, a remote hub asking runs.list without it) whole lists.
 */
export class RunListFeed {
  private last: RunInfo[] | null = null;
  private seq = 0;

  answered(runs: RunInfo[]): void {
    this.last = runs;
    this.seq = 0;
  }

  push(runs: RunInfo[]): RunsChangedPayload {
    if (this.last === null) return runs;
    const p = diffRunLists(this.last, this.seq, runs, this.seq + 1);
    this.last = runs;
    this.seq = p.seq;
    return p;
  }
}
