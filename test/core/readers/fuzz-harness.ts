// Shared fuzzing harness: mutated and truncated inputs through a reader, checking it fails only in typed ways.

import fc from 'fast-check';
import { expect } from 'vitest';
import type { ReadErrorKindName, SourceFormatName } from '../../../src/shared/formats';
import { createReader } from '../../../src/core/sources/registry';
import { MemoryFS } from './helpers';

/** Formats whose readers take their file access from `io` (event files have their own fuzzing). */
type InMemoryFormat = Exclude<SourceFormatName, 'tfevents'>;

const KINDS = new Set<ReadErrorKindName>([
  'truncated',
  'bad-length-crc',
  'bad-data-crc',
  'decode',
  'io',
  'too-large',
]);

/** One-shot read of `bytes` in memory; asserts the result is well-formed and bounded. */
export async function checkInput(format: InMemoryFormat, bytes: Uint8Array): Promise<void> {
  const fs = new MemoryFS();
  fs.set('/run/f', bytes);
  const r = createReader('/run/f', format, { io: fs, maxJsonBytes: 1 << 16 });
  await r.readMore({ final: true });
  const res = r.result();
  for (const e of res.errors) {
    if (!KINDS.has(e.kind) || !Number.isFinite(e.offset) || e.offset < 0)
      expect.fail(`bad error ${JSON.stringify(e)}`);
  }
  // No point without input bytes behind it: allocation is bounded by the input.
  if (res.series.pointCount() > bytes.length + 1)
    expect.fail(`${res.series.pointCount()} points from ${bytes.length} bytes`);
  for (const [, s] of res.series.entries())
    for (const step of s.steps()) if (!Number.isFinite(step)) expect.fail('non-finite step');
}

/** A seed mutated by byte edits, insertions and a cut; `extra` prefixes of each are also read. */
export function mutations(seeds: Uint8Array[]): fc.Arbitrary<Uint8Array> {
  const edit = fc.record({
    at: fc.nat(),
    kind: fc.constantFrom('set', 'insert', 'delete'),
    byte: fc.integer({ min: 0, max: 255 }),
  });
  return fc
    .record({
      seed: fc.nat({ max: seeds.length - 1 }),
      edits: fc.array(edit, { maxLength: 6 }),
      cut: fc.option(fc.nat()),
    })
    .map(({ seed, edits, cut }) => {
      const b = [...seeds[seed]!];
      for (const e of edits) {
        const at = b.length === 0 ? 0 : e.at % (b.length + (e.kind === 'insert' ? 1 : 0));
        if (e.kind === 'set' && b.length > 0) b[at % b.length] = e.byte;
        else if (e.kind === 'insert') b.splice(at, 0, e.byte);
        else if (b.length > 0) b.splice(at % b.length, 1);
      }
      return Uint8Array.from(cut === null ? b : b.slice(0, cut % (b.length + 1)));
    });
}

/**
 * Runs `runs` mutated inputs, each also read at `prefixes` evenly spaced truncations:
 * runs × (1 + prefixes) inputs in all, with little fast-check overhead per input.
 */
export async function fuzz(
  format: InMemoryFormat,
  seeds: Uint8Array[],
  runs: number,
  prefixes: number,
): Promise<number> {
  let inputs = 0;
  await fc.assert(
    fc.asyncProperty(mutations(seeds), async (bytes) => {
      await checkInput(format, bytes);
      inputs++;
      for (let i = 1; i <= prefixes; i++) {
        await checkInput(format, bytes.subarray(0, Math.floor((bytes.length * i) / (prefixes + 1))));
        inputs++;
      }
    }),
    { numRuns: runs, seed: 42 },
  );
  return inputs;
}

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
