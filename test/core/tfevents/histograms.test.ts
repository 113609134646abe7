// Histograms with their buckets: TensorBoard (legacy histo, histograms plugin) and W&B against an independent reader, TensorBoard's percentiles against numpy, the store's bounds.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { formatReport } from '../../../src/cli/inspect-command';
import { inspectPath } from '../../../src/core/inspect';
import { readEventFile } from '../../../src/core/tfevents';
import { packRead, unpackRead } from '../../../src/core/tfevents/read-message';
import {
  encodeFileVersionEvent,
  encodeHistogramEvent,
  encodeTensorHistogramEvent,
  frameRecord,
} from '../../../src/core/tfevents/writer';
import { HistogramStore, mergeBuckets } from '../../../src/core/readers/histogram-store';
import { readSource } from '../../../src/core/sources/registry';
import { distributionPercentiles, type HistogramSource } from '../../../src/shared/histogram-items';
import { histogramTags, histogramTagView } from '../../../src/core/app/run-histograms';
import { wandbHistogramLog } from '../wandb/histogram-run';

const TFEVENTS = join(__dirname, '../../fixtures/tfevents');
/** Real files with histograms (see test/fixtures/tfevents/ORIGIN.md): TF1 FileWriter (wandb's test fixtures), PyTorch SummaryWriter. */
const REAL = [
  join(TFEVENTS, 'wandb__wandb/events.out.tfevents.111.complex.localdomain'),
  join(TFEVENTS, 'wandb__wandb/events.out.tfevents.111.simple.localdomain'),
  join(TFEVENTS, '0pk0__rl4avs/events.out.tfevents.1756827963.pkMac.local.46956.0'),
];
const ORACLE = join(__dirname, 'histogram_oracle.py');
const tmp = mkdtempSync(join(tmpdir(), 'rlwatch-histo-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Num = number | string;
interface OracleHisto {
  tag: string;
  step: number;
  wallTime: Num | null;
  buckets: Num[][];
  percentiles: Num[];
}

const num = (x: Num): number => (typeof x === 'number' ? x : Number(x.replace('inf', 'Infinity')));

function oracle(files: string[]): Record<string, OracleHisto[]> {
  return JSON.parse(
    execFileSync('python3', [ORACLE, ...files], { maxBuffer: 64 << 20 }).toString(),
  ) as Record<string, OracleHisto[]>;
}

/** Every kept step of a source as (tag, step, wall time, buckets), grouped by tag in logged order. */
function stepsOf(
  src: HistogramSource,
): { tag: string; step: number; wallTime: number; buckets: number[][] }[] {
  return src.tags().flatMap((t) =>
    src.steps(t.tag).map((s) => {
      const buckets: number[][] = [];
      for (let i = 0; i < s.buckets.length; i += 3)
        buckets.push([s.buckets[i]!, s.buckets[i + 1]!, s.buckets[i + 2]!]);
      return { tag: t.tag, step: s.step, wallTime: s.wallTime, buckets };
    }),
  );
}

const byTag = <T extends { tag: string }>(list: T[]): T[] =>
  [...list].sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));

function writeEvents(name: string, payloads: Uint8Array[]): string {
  const path = join(tmp, name);
  writeFileSync(
    path,
    Buffer.concat([frameRecord(encodeFileVersionEvent(1000)), ...payloads.map(frameRecord)]),
  );
  return path;
}

/** Buckets of a seeded random walk of a distribution: k buckets over a drifting range. */
function walkBuckets(step: number, k: number): [number, number, number][] {
  const out: [number, number, number][] = [];
  const lo = -1 - step * 0.01;
  const width = (2 + step * 0.02) / k;
  for (let i = 0; i < k; i++)
    out.push([lo + i * width, lo + (i + 1) * width, ((i * 7 + step * 3) % 11) + (i === 3 ? 0 : 1)]);
  return out;
}

function expectSameAsOracle(path: string, src: HistogramSource, want: OracleHisto[]): void {
  const got = stepsOf(src);
  expect(got.length, path).toBe(want.length);
  expect(got.length).toBeGreaterThan(0);
  const wanted = byTag(want);
  got.forEach((g, i) => {
    const w = wanted[i]!;
    expect({ tag: g.tag, step: g.step }).toEqual({ tag: w.tag, step: w.step });
    if (w.wallTime !== null) expect(g.wallTime).toBe(num(w.wallTime));
    expect(g.buckets).toEqual(w.buckets.map((b) => b.map(num)));
    // TensorBoard's distribution percentiles: ours against numpy's, from the same buckets.
    const ours = distributionPercentiles(g.buckets.flat());
    ours.forEach((p, j) => {
      const theirs = num(w.percentiles[j]!);
      expect(Math.abs(p - theirs), `${g.tag}@${g.step} bp ${j}`).toBeLessThanOrEqual(
        1e-9 * Math.max(1, Math.abs(theirs)),
      );
    });
  });
}

describe('TensorBoard histograms against the independent reader', () => {
  test('real files (legacy HistogramProto): every tag, step, bucket and percentile', () => {
    const want = oracle(REAL);
    for (const path of REAL) {
      const r = readEventFile(path);
      expect(r.errors, path).toEqual([]);
      expectSameAsOracle(path, r.histogramSteps, want[path]!);
    }
  });

  test('the histograms plugin: [k, 3] tensors as tensor_content and as double_val, legacy with unpacked fields', () => {
    const payloads: Uint8Array[] = [];
    for (let step = 0; step < 40; step++) {
      payloads.push(encodeTensorHistogramEvent(1000 + step, step, 'policy/actions', walkBuckets(step, 30)));
      payloads.push(
        encodeTensorHistogramEvent(1000 + step, step, 'value/pred', walkBuckets(step + 5, 12), {
          content: false,
        }),
      );
    }
    // An empty histogram ([0, 3]) and a one-bucket one.
    payloads.push(encodeTensorHistogramEvent(2000, 41, 'policy/actions', []));
    payloads.push(encodeTensorHistogramEvent(2001, 42, 'policy/actions', [[0.5, 0.5, 9]]));
    payloads.push(
      encodeHistogramEvent(3000, 7, 'legacy', {
        min: -2,
        max: 5,
        num: 6,
        sum: 3,
        sumSquares: 30,
        bucketLimit: [-1, 0, 1, 1.7976931348623157e308],
        bucket: [1, 0, 3, 2],
      }),
    );
    const path = writeEvents('events.out.tfevents.1.plugin', payloads);
    const want = oracle([path])[path]!;
    const r = readEventFile(path);
    expect(r.errors).toEqual([]);
    expectSameAsOracle(path, r.histogramSteps, want);
    // The stat series stay as they were.
    expect(r.histograms.get('policy/actions/count').length).toBe(42);
    // Through a read worker's message: the same steps.
    const { read } = packRead(1, r);
    const back = unpackRead(structuredClone(read));
    expect(stepsOf(back.histogramSteps)).toEqual(stepsOf(r.histogramSteps));
    expect(back.histogramSteps.tags()).toEqual(r.histogramSteps.tags());
  });

  test('inspect counts the histogram steps kept', async () => {
    const dir = mkdtempSync(join(tmp, 'inspect-'));
    writeFileSync(
      join(dir, 'events.out.tfevents.2.x'),
      Buffer.concat(
        [
          encodeFileVersionEvent(1),
          ...[0, 1, 2].map((s) => encodeTensorHistogramEvent(1 + s, s, 'h', walkBuckets(s, 4))),
        ].map(frameRecord),
      ),
    );
    const report = await inspectPath(dir);
    expect(report.runs[0]!.sources[0]!.histograms).toBe(3);
    expect(formatReport(report)).toContain('histograms 3 step(s) kept');
  });
});

describe('W&B histogram records against Python json', () => {
  test('bins and packedBins, nested keys, _step as the step', async () => {
    const dir = mkdtempSync(join(tmp, 'wandb-'));
    const path = join(dir, 'run-histo1.wandb');
    writeFileSync(path, wandbHistogramLog());
    const want = oracle([path])[path]!;
    const r = await readSource(path, 'wandb');
    expect(r.errors).toEqual([]);
    expectSameAsOracle(path, r.histogramSteps!, want);
    expect(r.histogramSteps!.tags().map((t) => t.tag)).toEqual(['actions', 'grads', 'policy/logits']);
    expect(r.series.has('loss')).toBe(true);
    expect(
      [...r.series.entries()].map(([k]) => k).some((k) => k.startsWith('actions') || k.startsWith('bad')),
    ).toBe(false);
  });
});

describe('bounds', () => {
  test('a 100,000-bucket histogram is merged into 4096 buckets, its total and span kept', () => {
    const k = 100_000;
    const buckets: [number, number, number][] = [];
    for (let i = 0; i < k; i++) buckets.push([i, i + 1, i % 3]);
    const path = writeEvents('events.out.tfevents.3.wide', [
      encodeTensorHistogramEvent(1, 1, 'wide', buckets),
    ]);
    const r = readEventFile(path);
    expect(r.errors).toEqual([]);
    const s = r.histogramSteps.steps('wide')[0]!;
    expect(s.buckets.length / 3).toBeLessThanOrEqual(4096);
    let total = 0;
    for (let i = 2; i < s.buckets.length; i += 3) total += s.buckets[i]!;
    expect(total).toBe(buckets.reduce((n, b) => n + b[2], 0));
    expect([s.buckets[0], s.buckets[s.buckets.length - 2]]).toEqual([0, k]);
    // Merged neighbours are contiguous: each bucket starts where the previous ended.
    for (let i = 3; i < s.buckets.length; i += 3) expect(s.buckets[i]).toBe(s.buckets[i - 2]);
  });

  test('mergeBuckets leaves a histogram under the cap as it is', () => {
    const b = Float64Array.of(0, 1, 2, 1, 2, 3);
    expect(mergeBuckets(b, 2)).toBe(b);
    expect([...mergeBuckets(b, 1)]).toEqual([0, 2, 5]);
  });

  test('10,000 steps of a tag keep at most 500, evenly by stride, and the newest', () => {
    const store = new HistogramStore();
    for (let i = 0; i < 10_000; i++) store.add('t', i, i, Float64Array.of(0, 1, i));
    const steps = store.steps('t').map((s) => s.step);
    expect(steps.length).toBeLessThanOrEqual(501);
    expect(steps.length).toBeGreaterThan(250);
    expect(steps.at(-1)).toBe(9999);
    const kept = steps.slice(0, -1);
    const stride = kept[1]! - kept[0]!;
    expect(kept.every((s, i) => s === i * stride)).toBe(true);
    expect(store.tags()).toEqual([
      { tag: 't', steps: steps.length, seen: 10_000, firstStep: 0, lastStep: 9999 },
    ]);
    // Bytes count what is held: the kept steps and the newest.
    expect(store.bytes).toBe(steps.length * (24 + 64));
  });

  test('the byte budget thins kept steps to take new ones (counted as dropped); every tag keeps its newest', () => {
    const store = new HistogramStore({ tagSteps: 500, stepBuckets: 4096, sourceBytes: 10 * (24 * 10 + 64) });
    for (let i = 0; i < 30; i++) store.add(`t${i % 3}`, i, i, new Float64Array(30));
    expect(store.tags().map((t) => t.lastStep)).toEqual([27, 28, 29]);
    expect(store.dropped).toBeGreaterThan(0);
    expect(store.bytes).toBeLessThanOrEqual(store.limits.sourceBytes);
    // (test/core/readers/histogram-budget.test.ts: spread, snapshots)
  });

  test('corrupt histograms: a packed run cut mid-double is a decode error storing nothing; mismatched lists are skipped', () => {
    const good = encodeHistogramEvent(1, 1, 'h', {
      min: 0,
      max: 2,
      num: 2,
      sum: 2,
      sumSquares: 2,
      bucketLimit: [1, 2],
      bucket: [1, 1],
    });
    // bucket (field 7) packed of 16 bytes: the length byte 0x10 → 0x0f cuts the last double and shifts the rest.
    const cut = Uint8Array.from(good);
    const at = cut.lastIndexOf(0x3a);
    expect(cut[at + 1]).toBe(16);
    cut[at + 1] = 15;
    const mismatched = encodeHistogramEvent(2, 2, 'h', {
      min: 0,
      max: 2,
      num: 2,
      sum: 2,
      sumSquares: 2,
      bucketLimit: [1, 2, 3],
      bucket: [1, 1],
    });
    const path = writeEvents('events.out.tfevents.4.bad', [cut, mismatched, good]);
    const r = readEventFile(path);
    expect(r.errors.map((e) => e.kind)).toEqual(['decode']);
    expect(r.histogramSteps.steps('h').map((s) => s.step)).toEqual([1]);
    // The mismatched one still counts as a histogram in the stat series.
    expect(r.histograms.get('h/count').length).toBe(2);
  });
});

describe('histograms.list / histograms.get', () => {
  test('tags across sources; a view of at most 200 steps on one grid whose counts keep each step total', () => {
    const a = new HistogramStore();
    const b = new HistogramStore();
    for (let i = 0; i < 300; i++) a.add('x', i, i, Float64Array.from(walkBuckets(i, 20).flat()));
    for (let i = 300; i < 450; i++) b.add('x', i, i, Float64Array.from(walkBuckets(i, 20).flat()));
    b.add('y', 5, 5, Float64Array.of(1, 2, 3));
    expect(histogramTags([a, b])).toEqual([
      { tag: 'x', steps: 450, seen: 450, firstStep: 0, lastStep: 449 },
      { tag: 'y', steps: 1, seen: 1, firstStep: 5, lastStep: 5 },
    ]);
    const v = histogramTagView('run', 'x', [b, a]);
    expect(v.steps.length).toBe(200);
    expect(v.steps[0]).toBe(0);
    expect(v.steps.at(-1)).toBe(449);
    expect(v.steps).toEqual([...v.steps].sort((p, q) => p - q));
    expect(v.edges.length).toBe(65);
    v.counts.forEach((c, i) => {
      const step = v.steps[i]!;
      const total = walkBuckets(step, 20).reduce((n, x) => n + x[2], 0);
      expect(c.reduce((n, x) => n + x, 0)).toBeCloseTo(total, 9);
    });
    expect(() => histogramTagView('run', 'nope', [a])).toThrow(/no histograms tagged nope/);
  });
});
