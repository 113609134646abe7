// Test helpers for the tfevents reader: corpus listing, result digests, and growing files (in memory and on disk).

import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { SeriesSet } from '../../../src/core/series/series-set';
import { EventFileReader, EventStream } from '../../../src/core/tfevents';
import type { TfEventsReadOptions, TfEventsReadResult } from '../../../src/core/tfevents';

export const FIXTURES = join(__dirname, '../../fixtures/tfevents');

/** Every event file of the fixture corpus, as paths relative to FIXTURES. */
export function corpusFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.includes('tfevents')) out.push(relative(FIXTURES, p));
    }
  };
  walk(FIXTURES);
  return out;
}

export function fixture(rel: string): Uint8Array {
  return new Uint8Array(readFileSync(join(FIXTURES, rel)));
}

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);

function mix(h: number, x: number): number {
  F64[0] = x;
  h = Math.imul(h ^ U32[0]!, 0x01000193);
  return Math.imul(h ^ U32[1]!, 0x01000193);
}

function digestSet(set: SeriesSet, h: number): number {
  for (const tag of set.tags()) {
    for (let i = 0; i < tag.length; i++) h = Math.imul(h ^ tag.charCodeAt(i), 0x01000193);
    const s = set.get(tag);
    h = mix(h, s.length);
    for (let i = 0; i < s.length; i++) {
      h = mix(h, s.step(i));
      h = mix(h, s.wallTime(i));
      h = mix(h, s.value(i));
    }
  }
  return h >>> 0;
}

/** A compact, exact description of a result: equal digests mean equal series, counts and errors. */
export function describe(r: TfEventsReadResult): string {
  const errors = r.errors.map((e) => `${e.kind}@${e.offset}`).join(',');
  return [
    `records=${r.records}`,
    `scalars=${r.series.size}/${r.series.pointCount()}:${digestSet(r.series, 0x811c9dc5).toString(16)}`,
    `histograms=${r.histograms.size}/${r.histograms.pointCount()}:${digestSet(r.histograms, 0x811c9dc5).toString(16)}`,
    `version=${r.fileVersion}`,
    `skipped=${r.skippedValues}`,
    `errors=[${errors}]`,
  ].join(' ');
}

/** Reads `bytes` pushed as the given pieces (cut at `cuts`, ascending offsets) through the in-memory API. */
export function readInPieces(
  bytes: Uint8Array,
  cuts: Iterable<number>,
  opts: TfEventsReadOptions = {},
): TfEventsReadResult {
  const stream = new EventStream(opts);
  let from = 0;
  for (const cut of cuts) {
    if (cut <= from || cut >= bytes.length) continue;
    // A copy, reused afterwards like a read buffer, proves the stream keeps no view of a pushed chunk.
    const chunk = bytes.slice(from, cut);
    stream.push(chunk);
    chunk.fill(0xa5);
    from = cut;
  }
  stream.push(bytes.subarray(from));
  return stream.result(true);
}

export function readWhole(bytes: Uint8Array, opts: TfEventsReadOptions = {}): TfEventsReadResult {
  const stream = new EventStream(opts);
  stream.push(bytes);
  return stream.result(true);
}

/** A temp folder removed by `dispose`. */
export function tempDir(): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-tfevents-'));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * TensorBoard's ScriptedReader idea on a real file: the file grows by the scripted pieces and the
 * reader polls after each one, as a live run is followed.
 */
export function readGrowingFile(
  dir: string,
  bytes: Uint8Array,
  cuts: Iterable<number>,
  opts: TfEventsReadOptions = {},
): { result: TfEventsReadResult; liveErrors: number } {
  const path = join(dir, `events.out.tfevents.${Math.random().toString(36).slice(2)}`);
  writeFileSync(path, new Uint8Array(0));
  const reader = new EventFileReader(path, { ...opts, chunkBytes: 4096 });
  let from = 0;
  let liveErrors = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut <= from || cut > bytes.length) continue;
    appendFileSync(path, bytes.subarray(from, cut));
    from = cut;
    reader.readMore();
    // A live file's partial record is waited for, never reported.
    liveErrors += reader.result(false).errors.filter((e) => e.kind === 'truncated').length;
  }
  return { result: reader.result(true), liveErrors };
}

/** Deterministic pseudo-random numbers for sampling split points. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}
