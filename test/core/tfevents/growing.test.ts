// Growing files: every corpus file read in pieces (every byte boundary, in memory and on disk) equals the one-shot read.

import { afterAll, describe, expect, it } from 'vitest';
import {
  corpusFiles,
  describe as digest,
  fixture,
  readGrowingFile,
  readInPieces,
  readWhole,
  rng,
  tempDir,
} from './helpers';

const files = corpusFiles();
/** Above this size a file gets a dense sample of boundaries instead of all of them in every mode. */
const BIG = 64_000;

function* every(n: number, step: number, phase: number): Generator<number> {
  for (let k = phase; k < n; k += step) yield k;
}

function sortedSample(n: number, count: number, seed: number): number[] {
  const r = rng(seed);
  return Array.from({ length: count }, () => 1 + Math.floor(r() * (n - 1))).sort((a, b) => a - b);
}

describe('reading a file split at byte boundaries gives the one-shot result', () => {
  it.each(files)('%s, byte by byte (every boundary, split records assembled)', (rel) => {
    const bytes = fixture(rel);
    const want = digest(readWhole(bytes));
    expect(digest(readInPieces(bytes, every(bytes.length, 1, 1)))).toBe(want);
  });

  it.each(files)('%s, every boundary followed by a larger piece', (rel) => {
    const bytes = fixture(rel);
    const want = digest(readWhole(bytes));
    if (bytes.length <= BIG) {
      // Pieces of 97 bytes at every phase: each boundary k is a cut in exactly one run.
      for (let phase = 1; phase <= 97; phase++) {
        const got = digest(readInPieces(bytes, every(bytes.length, 97, phase)));
        if (got !== want) expect({ phase, got }).toEqual({ phase, got: want });
      }
      // Two pieces, split everywhere in the first and last 256 bytes (header, first records, tail).
      for (let k = 1; k < Math.min(bytes.length, 256); k++) {
        for (const cut of [k, bytes.length - k]) {
          const got = digest(readInPieces(bytes, [cut]));
          if (got !== want) expect({ cut, got }).toEqual({ cut, got: want });
        }
      }
    } else {
      // Dense sample: 8 phases of 97-byte pieces, 8 of 4099-byte pieces, 40 two-piece splits.
      for (const size of [97, 4099]) {
        for (let phase = 1; phase <= size; phase += Math.ceil(size / 8)) {
          const got = digest(readInPieces(bytes, every(bytes.length, size, phase)));
          if (got !== want) expect({ size, phase, got }).toEqual({ size, phase, got: want });
        }
      }
      for (const cut of sortedSample(bytes.length, 40, bytes.length)) {
        const got = digest(readInPieces(bytes, [cut]));
        if (got !== want) expect({ cut, got }).toEqual({ cut, got: want });
      }
    }
  });

  it.each(files)('%s, random pieces, data CRCs checked', (rel) => {
    const bytes = fixture(rel);
    const want = digest(readWhole(bytes, { checkDataCrc: true }));
    for (let seed = 1; seed <= 20; seed++) {
      const cuts = sortedSample(bytes.length, 1 + (seed % 7) * 5, seed * 7919);
      expect(digest(readInPieces(bytes, cuts, { checkDataCrc: true }))).toBe(want);
    }
  });
});

describe('following a real file that grows between reads', () => {
  const tmp = tempDir();
  afterAll(() => tmp.dispose());

  it.each(files)('%s grows in random pieces; a partial record is never reported while live', (rel) => {
    const bytes = fixture(rel);
    const want = digest(readWhole(bytes));
    for (let seed = 1; seed <= 3; seed++) {
      const { result, liveErrors } = readGrowingFile(tmp.dir, bytes, sortedSample(bytes.length, 40, seed));
      expect(liveErrors).toBe(0);
      expect(digest(result)).toBe(want);
    }
  });

  it.each(files.filter((rel) => fixture(rel).length <= 6000))('%s grows one byte at a time', (rel) => {
    const bytes = fixture(rel);
    const { result, liveErrors } = readGrowingFile(tmp.dir, bytes, every(bytes.length, 1, 1));
    expect(liveErrors).toBe(0);
    expect(digest(result)).toBe(digest(readWhole(bytes)));
  });
});
