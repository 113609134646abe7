// Decodes the parts of a wandb_internal.Record that rlwatch uses: history, summary, config, stats, run, exit.

import { ProtoCursor, ProtoError, WIRE_LEN, WIRE_VARINT } from '../readers/proto-cursor';

/** A key/value_json item; nested keys are joined with '/'. */
export interface Item {
  key: string;
  valueJson: string;
}

export type WandbRecord =
  | { type: 'history'; items: Item[]; step: number | null }
  | { type: 'summary'; update: Item[]; remove: Item[] }
  | { type: 'config'; update: Item[]; remove: Item[] }
  | { type: 'stats'; timestamp: number | null; items: Item[] }
  | { type: 'run'; run: RunInfo }
  | { type: 'exit'; exitCode: number; runtime: number }
  | { type: 'other'; field: number };

export interface RunInfo {
  runId: string;
  entity: string;
  project: string;
  displayName: string;
  startTime: number | null;
  startingStep: number;
  config: Item[];
}

export type DecodeResult = { ok: true; record: WandbRecord } | { ok: false; message: string };

// Field numbers from wandb/proto/wandb_internal.proto.
const REC_HISTORY = 2;
const REC_SUMMARY = 3;
const REC_CONFIG = 5;
const REC_STATS = 7;
const REC_RUN = 17;
const REC_EXIT = 18;

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** The length-delimited field at the cursor as a cursor of its own (no copy); the parent moves past it. */
function message(r: ProtoCursor): ProtoCursor {
  const n = r.length();
  const sub = new ProtoCursor();
  sub.reset(r.buf, r.pos, r.pos + n);
  r.pos += n;
  return sub;
}

function string(r: ProtoCursor): string {
  const n = r.length();
  const text = utf8.decode(r.buf.subarray(r.pos, r.pos + n));
  r.pos += n;
  return text;
}

/** Field number and wire type of the next field. */
function tag(r: ProtoCursor): { field: number; wire: number } {
  const key = r.key();
  return { field: Math.floor(key / 8), wire: key & 7 };
}

function done(r: ProtoCursor): boolean {
  return r.pos >= r.end;
}

export function decodeRecord(bytes: Uint8Array): DecodeResult {
  try {
    const r = new ProtoCursor();
    r.reset(bytes, 0, bytes.length);
    return { ok: true, record: decode(r) };
  } catch (e) {
    if (e instanceof ProtoError || e instanceof RangeError) return { ok: false, message: e.message };
    throw e;
  }
}

function decode(r: ProtoCursor): WandbRecord {
  let found: WandbRecord = { type: 'other', field: 0 };
  while (!done(r)) {
    const { field, wire } = tag(r);
    if (wire !== WIRE_LEN) {
      r.skip(wire);
      continue;
    }
    switch (field) {
      case REC_HISTORY:
        found = history(message(r));
        break;
      case REC_SUMMARY:
        found = { type: 'summary', ...updates(message(r)) };
        break;
      case REC_CONFIG:
        found = { type: 'config', ...updates(message(r)) };
        break;
      case REC_STATS:
        found = stats(message(r));
        break;
      case REC_RUN:
        found = { type: 'run', run: run(message(r)) };
        break;
      case REC_EXIT:
        found = exit(message(r));
        break;
      default:
        // Any other record kind (output, telemetry, files…), control, uuid, _info.
        if (found.type === 'other' && field !== 16 && field !== 19 && field !== 200)
          found = { type: 'other', field };
        r.skip(wire);
    }
  }
  return found;
}

/** HistoryItem / SummaryItem / ConfigItem / StatsItem all share key=1, nested_key=2, value_json=16. */
function item(r: ProtoCursor): Item {
  let key = '';
  const nested: string[] = [];
  let valueJson = '';
  while (!done(r)) {
    const { field, wire } = tag(r);
    if (wire === WIRE_LEN && field === 1) key = string(r);
    else if (wire === WIRE_LEN && field === 2) nested.push(string(r));
    else if (wire === WIRE_LEN && field === 16) valueJson = string(r);
    else r.skip(wire);
  }
  return { key: nested.length > 0 ? nested.join('/') : key, valueJson };
}

function history(r: ProtoCursor): WandbRecord {
  const items: Item[] = [];
  let step: number | null = null;
  while (!done(r)) {
    const { field, wire } = tag(r);
    if (wire === WIRE_LEN && field === 1) items.push(item(message(r)));
    else if (wire === WIRE_LEN && field === 2) step = stepNum(message(r));
    else r.skip(wire);
  }
  return { type: 'history', items, step };
}

function stepNum(r: ProtoCursor): number {
  let num = 0;
  while (!done(r)) {
    const { field, wire } = tag(r);
    if (wire === WIRE_VARINT && field === 1) num = r.varint();
    else r.skip(wire);
  }
  return num;
}

function updates(r: ProtoCursor): { update: Item[]; remove: Item[] } {
  const update: Item[] = [];
  const remove: Item[] = [];
  while (!done(r)) {
    const { field, wire } = tag(r);
    if (wire === WIRE_LEN && field === 1) update.push(item(message(r)));
    else if (wire === WIRE_LEN && field === 2) remove.push(item(message(r)));
    else r.skip(wire);
  }
  return { update, remove };
}

function stats(r: ProtoCursor): WandbRecord {
  const items: Item[] = [];
  let timestamp: number | null = null;
  while (!done(r)) {
    const { field, wire } = tag(r);
    if (wire === WIRE_LEN && field === 2) timestamp = protoTimestamp(message(r));
    else if (wire === WIRE_LEN && field === 3) items.push(item(message(r)));
    else r.skip(wire);
  }
  return { type: 'stats', timestamp, items };
}

/** google.protobuf.Timestamp {seconds=1, nanos=2} as epoch seconds. */
function protoTimestamp(r: ProtoCursor): number {
  let seconds = 0;
  let nanos = 0;
  while (!done(r)) {
    const { field, wire } = tag(r);
    if (wire === WIRE_VARINT && field === 1) seconds = r.varint();
    else if (wire === WIRE_VARINT && field === 2) nanos = r.varint();
    else r.skip(wire);
  }
  return seconds + nanos / 1e9;
}

function run(r: ProtoCursor): RunInfo {
  const info: RunInfo = {
    runId: '',
    entity: '',
    project: '',
    displayName: '',
    startTime: null,
    startingStep: 0,
    config: [],
  };
  while (!done(r)) {
    const { field, wire } = tag(r);
    if (wire === WIRE_LEN && field === 1) info.runId = string(r);
    else if (wire === WIRE_LEN && field === 2) info.entity = string(r);
    else if (wire === WIRE_LEN && field === 3) info.project = string(r);
    else if (wire === WIRE_LEN && field === 4) info.config = updates(message(r)).update;
    else if (wire === WIRE_LEN && field === 8) info.displayName = string(r);
    else if (wire === WIRE_VARINT && field === 14) info.startingStep = r.varint();
    else if (wire === WIRE_LEN && field === 17) info.startTime = protoTimestamp(message(r));
    else r.skip(wire);
  }
  return info;
}

function exit(r: ProtoCursor): WandbRecord {
  let exitCode = 0;
  let runtime = 0;
  while (!done(r)) {
    const { field, wire } = tag(r);
    if (wire === WIRE_VARINT && field === 1) exitCode = toInt32(r.varint());
    else if (wire === WIRE_VARINT && field === 2) runtime = toInt32(r.varint());
    else r.skip(wire);
  }
  return { type: 'exit', exitCode, runtime };
}

/** int32 fields are sign-extended to 64 bits on the wire. */
function toInt32(v: number): number {
  return v > 2 ** 31 - 1 || v < -(2 ** 31) ? v | 0 : v;
}
