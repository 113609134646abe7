// Decodes the parts of a wandb_internal.Record that rlwatch uses: history, summary, config, stats, run, exit.

import { ProtoError, ProtoReader, WIRE_LEN, WIRE_VARINT } from './proto-reader';

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

export function decodeRecord(bytes: Uint8Array): DecodeResult {
  try {
    return { ok: true, record: decode(new ProtoReader(bytes)) };
  } catch (e) {
    if (e instanceof ProtoError || e instanceof RangeError) return { ok: false, message: e.message };
    throw e;
  }
}

function decode(r: ProtoReader): WandbRecord {
  let found: WandbRecord = { type: 'other', field: 0 };
  while (!r.done) {
    const { field, wire } = r.tag();
    if (wire !== WIRE_LEN) {
      r.skip(wire);
      continue;
    }
    switch (field) {
      case REC_HISTORY:
        found = history(r.message());
        break;
      case REC_SUMMARY:
        found = { type: 'summary', ...updates(r.message()) };
        break;
      case REC_CONFIG:
        found = { type: 'config', ...updates(r.message()) };
        break;
      case REC_STATS:
        found = stats(r.message());
        break;
      case REC_RUN:
        found = { type: 'run', run: run(r.message()) };
        break;
      case REC_EXIT:
        found = exit(r.message());
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
function item(r: ProtoReader): Item {
  let key = '';
  const nested: string[] = [];
  let valueJson = '';
  while (!r.done) {
    const { field, wire } = r.tag();
    if (wire === WIRE_LEN && field === 1) key = r.string();
    else if (wire === WIRE_LEN && field === 2) nested.push(r.string());
    else if (wire === WIRE_LEN && field === 16) valueJson = r.string();
    else r.skip(wire);
  }
  return { key: nested.length > 0 ? nested.join('/') : key, valueJson };
}

function history(r: ProtoReader): WandbRecord {
  const items: Item[] = [];
  let step: number | null = null;
  while (!r.done) {
    const { field, wire } = r.tag();
    if (wire === WIRE_LEN && field === 1) items.push(item(r.message()));
    else if (wire === WIRE_LEN && field === 2) step = stepNum(r.message());
    else r.skip(wire);
  }
  return { type: 'history', items, step };
}

function stepNum(r: ProtoReader): number {
  let num = 0;
  while (!r.done) {
    const { field, wire } = r.tag();
    if (wire === WIRE_VARINT && field === 1) num = r.int64();
    else r.skip(wire);
  }
  return num;
}

function updates(r: ProtoReader): { update: Item[]; remove: Item[] } {
  const update: Item[] = [];
  const remove: Item[] = [];
  while (!r.done) {
    const { field, wire } = r.tag();
    if (wire === WIRE_LEN && field === 1) update.push(item(r.message()));
    else if (wire === WIRE_LEN && field === 2) remove.push(item(r.message()));
    else r.skip(wire);
  }
  return { update, remove };
}

function stats(r: ProtoReader): WandbRecord {
  const items: Item[] = [];
  let timestamp: number | null = null;
  while (!r.done) {
    const { field, wire } = r.tag();
    if (wire === WIRE_LEN && field === 2) timestamp = protoTimestamp(r.message());
    else if (wire === WIRE_LEN && field === 3) items.push(item(r.message()));
    else r.skip(wire);
  }
  return { type: 'stats', timestamp, items };
}

/** google.protobuf.Timestamp {seconds=1, nanos=2} as epoch seconds. */
function protoTimestamp(r: ProtoReader): number {
  let seconds = 0;
  let nanos = 0;
  while (!r.done) {
    const { field, wire } = r.tag();
    if (wire === WIRE_VARINT && field === 1) seconds = r.int64();
    else if (wire === WIRE_VARINT && field === 2) nanos = r.int64();
    else r.skip(wire);
  }
  return seconds + nanos / 1e9;
}

function run(r: ProtoReader): RunInfo {
  const info: RunInfo = {
    runId: '',
    entity: '',
    project: '',
    displayName: '',
    startTime: null,
    startingStep: 0,
    config: [],
  };
  while (!r.done) {
    const { field, wire } = r.tag();
    if (wire === WIRE_LEN && field === 1) info.runId = r.string();
    else if (wire === WIRE_LEN && field === 2) info.entity = r.string();
    else if (wire === WIRE_LEN && field === 3) info.project = r.string();
    else if (wire === WIRE_LEN && field === 4) info.config = updates(r.message()).update;
    else if (wire === WIRE_LEN && field === 8) info.displayName = r.string();
    else if (wire === WIRE_VARINT && field === 14) info.startingStep = r.int64();
    else if (wire === WIRE_LEN && field === 17) info.startTime = protoTimestamp(r.message());
    else r.skip(wire);
  }
  return info;
}

function exit(r: ProtoReader): WandbRecord {
  let exitCode = 0;
  let runtime = 0;
  while (!r.done) {
    const { field, wire } = r.tag();
    if (wire === WIRE_VARINT && field === 1) exitCode = toInt32(r.int64());
    else if (wire === WIRE_VARINT && field === 2) runtime = toInt32(r.int64());
    else r.skip(wire);
  }
  return { type: 'exit', exitCode, runtime };
}

/** int32 fields are sign-extended to 64 bits on the wire. */
function toInt32(v: number): number {
  return v > 2 ** 31 - 1 || v < -(2 ** 31) ? v | 0 : v;
}
