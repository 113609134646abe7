// Property test: no truncation or byte mutation of any recorded dump makes the parsers throw or emit NaN.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseComputeAppsCsv, parseQueryGpuCsv } from '../../../src/core/system/nvidia-csv';
import { parseNvidiaXml } from '../../../src/core/system/nvidia-xml';
import { readCsv, readXml, xmlDumps } from './fixtures';
import type { NvidiaGpu } from '../../../src/shared/system-types';

const dumps = xmlDumps().map(readXml);
const csvs = [
  'linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.query-gpu.load.csv',
  'windows-x86_64__nvidia-geforce-rtx-2080-super__610.62.query-compute-apps.load.csv',
  'query.txt',
].map(readCsv);

function noNaN(gpus: NvidiaGpu[]): void {
  const walk = (v: unknown): void => {
    if (typeof v === 'number') expect(Number.isNaN(v)).toBe(false);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(gpus);
}

const mutation = (text: string) =>
  fc.record({
    cut: fc.nat({ max: text.length }),
    edits: fc.array(
      fc.tuple(
        fc.nat({ max: Math.max(0, text.length - 1) }),
        fc.constantFrom('<', '>', '/', '&', '"', '\u0000', 'é', '', ' N/A '),
      ),
      {
        maxLength: 8,
      },
    ),
  });

function apply(text: string, m: { cut: number; edits: Array<[number, string]> }): string {
  let s = text.slice(0, m.cut);
  for (const [at, ch] of m.edits) if (at < s.length) s = s.slice(0, at) + ch + s.slice(at + 1);
  return s;
}

describe('fuzzing the parsers with the recorded dumps', () => {
  it('every prefix cut of every XML dump at 64 evenly spread points parses or fails cleanly', () => {
    for (const xml of dumps) {
      for (let i = 0; i <= 64; i++) {
        const r = parseNvidiaXml(xml.slice(0, Math.floor((xml.length * i) / 64)), 0);
        if (r.ok) noNaN(r.value.gpus);
      }
    }
  });

  it('random truncations and mutations of XML dumps never throw', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 0, max: dumps.length - 1 })
          .chain((i) => fc.tuple(fc.constant(i), mutation(dumps[i]!))),
        ([i, m]) => {
          const r = parseNvidiaXml(apply(dumps[i]!, m), 0);
          if (r.ok) noNaN(r.value.gpus);
        },
      ),
      { numRuns: 300, seed: 20240605 },
    );
  });

  it('random truncations and mutations of CSV captures never throw', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 0, max: csvs.length - 1 })
          .chain((i) => fc.tuple(fc.constant(i), mutation(csvs[i]!))),
        ([i, m]) => {
          const text = apply(csvs[i]!, m);
          const gpus = parseQueryGpuCsv(text);
          if (gpus.ok) noNaN(gpus.value);
          parseComputeAppsCsv(text);
        },
      ),
      { numRuns: 500, seed: 7 },
    );
  });
});
