// The read pool: worker threads give the in-thread read exactly (series, errors), and a worker that fails or cannot
// start hands the file back to an in-thread read, never an exit.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { SeriesSet } from '../../../src/core/series/series-set';
import { readSource } from '../../../src/core/sources/registry';
import {
  encodeFileVersionEvent,
  encodeScalarEvent,
  frameRecord,
  readEventFile,
  type TfEventsReadResult,
} from '../../../src/core/tfevents';
import { MIN_WORKER_BYTES, ReadPool, readPool } from '../../../src/core/tfevents/read-pool';
import { corpusFiles, FIXTURES, tempDir } from './helpers';

function columns(set: SeriesSet): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const tag of set.tags()) {
    const s = set.get(tag);
    out[tag] = { steps: s.steps(), wall: s.wallTimes(), values: s.values(), untimed: s.untimed };
  }
  return out;
}

/** Everything a read answers, series as their filled columns (typed arrays: their kind counts too). */
function everything(r: TfEventsReadResult): unknown {
  const { series, histograms, ...rest } = r;
  return { ...rest, series: columns(series), histograms: columns(histograms) };
}

const tmp = tempDir();
const pool = new ReadPool(2);
afterAll(async () => {
  await pool.close();
  tmp.dispose();
});

describe('read pool', () => {
  const files = corpusFiles();

  it('reads every corpus event file exactly as in-thread, CRCs off and on', async () => {
    expect(files.length).toBeGreaterThan(5);
    for (const checkDataCrc of [false, true]) {
      const reads = await Promise.all(files.map((f) => pool.read(join(FIXTURES, f), { checkDataCrc })));
      reads.forEach((r, k) => {
        const want = readEventFile(join(FIXTURES, files[k]!), { checkDataCrc });
        expect(everything(r), files[k]).toEqual(everything(want));
      });
    }
    expect(pool.failures).toBe(0);
    expect(pool.workerReads).toBe(2 * files.length);
  });

  it('keeps only the tags asked (onlyScalars), on a worker and in-thread: each exactly as the whole read has it', async () => {
    let kept = 0;
    for (const f of files) {
      const path = join(FIXTURES, f);
      const whole = readEventFile(path);
      const tags = whole.series.tags();
      if (tags.length < 2) continue;
      // The last tag and the first (other tags, histograms and texts are skipped as they decode).
      const only = [tags[tags.length - 1]!, tags[0]!];
      const want = columns(whole.series);
      for (const got of [
        readEventFile(path, { onlyScalars: only }),
        await pool.read(path, { onlyScalars: only }),
      ]) {
        expect(got.series.tags(), f).toEqual([...only].sort());
        const cols = columns(got.series);
        for (const tag of only) expect(cols[tag], `${f} ${tag}`).toEqual(want[tag]);
        expect(got.histograms.tags(), f).toEqual([]);
        expect(got.texts.count, f).toBe(0);
      }
      kept++;
    }
    expect(kept).toBeGreaterThan(3);
  });

  it('reports a corrupt, truncated or missing file with the in-thread typed errors', async () => {
    const good = frameRecord(encodeScalarEvent(1700000000, 1, [{ tag: 'loss', value: 0.5 }]));
    const corrupt = Uint8Array.from(good);
    corrupt[20]! ^= 0xff; // a payload byte: the data CRC no longer matches
    const badLength = Uint8Array.from(good);
    badLength[9]! ^= 0xff; // the length CRC: the rest of the file is unreadable
    const cases: Record<string, Uint8Array> = {
      'bad data crc': Buffer.concat([frameRecord(encodeFileVersionEvent(1700000000)), corrupt, good]),
      'bad length crc': Buffer.concat([good, badLength, good]),
      truncated: Buffer.concat([good, good.subarray(0, 10)]),
    };
    const paths = Object.entries(cases).map(([name, bytes]) => {
      const p = join(tmp.dir, name.replace(/ /g, '-'));
      writeFileSync(p, bytes);
      return p;
    });
    paths.push(join(tmp.dir, 'missing'));
    for (const checkDataCrc of [false, true])
      for (const p of paths) {
        const got = await pool.read(p, { checkDataCrc });
        const want = readEventFile(p, { checkDataCrc });
        // (A changed payload byte that still decodes is found by the data CRC only.)
        if (checkDataCrc || !p.endsWith('bad-data-crc')) expect(want.errors.length, p).toBeGreaterThan(0);
        expect(everything(got), p).toEqual(everything(want));
      }
  });

  it('reads a large file on a worker through readSource and answers what the in-thread reader does', async () => {
    const p = join(tmp.dir, 'events.out.tfevents.large');
    const records: Uint8Array[] = [frameRecord(encodeFileVersionEvent(1700000000))];
    let size = 0;
    for (let step = 0; size < MIN_WORKER_BYTES + 1000; step++) {
      const r = frameRecord(
        encodeScalarEvent(1700000000 + step, step, [
          { tag: 'train/loss', value: 1 / (step + 1) },
          { tag: 'train/reward', value: step % 7 },
        ]),
      );
      records.push(r);
      size += r.length;
    }
    writeFileSync(p, Buffer.concat(records));
    const before = readPool().workerReads;
    const viaWorkers = await readSource(p, 'tfevents', { workers: true });
    expect(readPool().workerReads).toBe(before + 1);
    const inThread = await readSource(p, 'tfevents');
    expect(viaWorkers.series.pointCount()).toBe(2 * (records.length - 1));
    expect(columns(viaWorkers.series)).toEqual(columns(inThread.series));
    expect(viaWorkers.errors).toEqual(inThread.errors);
    expect(viaWorkers.records).toBe(inThread.records);
  });

  it('reads in-thread when a worker crashes, and stops starting workers after repeated failures', async () => {
    const crash = join(tmp.dir, 'crash-worker.mjs');
    writeFileSync(
      crash,
      "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => process.exit(3));\n",
    );
    const throws = join(tmp.dir, 'throw-worker.mjs');
    writeFileSync(throws, "throw new Error('worker failed to start');\n");
    const file = join(FIXTURES, files[0]!);
    const want = everything(readEventFile(file));
    for (const script of [crash, throws]) {
      const broken = new ReadPool(2, { entry: pathToFileURL(script), eval: false });
      const reads = await Promise.all([1, 2, 3, 4, 5].map(() => broken.read(file)));
      for (const r of reads) expect(everything(r)).toEqual(want);
      expect(broken.workerReads).toBe(0);
      expect(broken.failures).toBeGreaterThanOrEqual(3);
      expect(broken.available).toBe(false);
      expect(everything(await broken.read(file))).toEqual(want);
      await broken.close();
    }
  });

  it('reads in-thread where no worker entry exists', async () => {
    const none = new ReadPool(2, null);
    expect(none.available).toBe(false);
    const file = join(FIXTURES, files[0]!);
    expect(everything(await none.read(file))).toEqual(everything(readEventFile(file)));
    expect(await none.readIfLarge(file)).toBeNull();
  });
});
