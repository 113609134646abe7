// Real event files: the TensorBoard-writer oracle matches exactly, and every corpus file reads cleanly.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarize } from '../../../src/core/series/scalar-series';
import { readEventFile } from '../../../src/core/tfevents';
import { corpusFiles, describe as digest, FIXTURES, fixture, readWhole } from './helpers';

interface Oracle {
  file: string;
  events: number;
  scalars: number;
  steps: number;
  tags: string[];
  float32_sum_per_tag: Record<string, number>;
  last_value_per_tag: Record<string, number>;
}

const ORACLES = ['small', 'small_perstep', 'small_tensor'];

describe('tensorboard-writer oracle', () => {
  it.each(ORACLES)('%s: counts, tags and per-tag float32 sums match', (name) => {
    const oracle = JSON.parse(
      readFileSync(join(FIXTURES, 'tensorboard-writer', `${name}.expected.json`), 'utf8'),
    ) as Oracle;
    const r = readEventFile(join(FIXTURES, 'tensorboard-writer', oracle.file));
    expect(r.errors).toEqual([]);
    expect(r.records).toBe(oracle.events);
    expect(r.series.pointCount()).toBe(oracle.scalars);
    expect(r.series.tags()).toEqual([...oracle.tags].sort());
    expect(r.histograms.size).toBe(0);
    for (const tag of oracle.tags) {
      const s = summarize(r.series.get(tag));
      const want = oracle.float32_sum_per_tag[tag]!;
      expect(s.count).toBe(oracle.steps);
      expect(Math.abs(s.sum - want)).toBeLessThanOrEqual(1e-6 * Math.abs(want));
      expect(s.last).toBe(oracle.last_value_per_tag[tag]);
      expect(s.firstStep).toBe(0);
      expect(s.lastStep).toBe(oracle.steps - 1);
    }
  });

  it('wall times follow the oracle formula 1.6e9 + 0.1*s', () => {
    const r = readEventFile(
      join(FIXTURES, 'tensorboard-writer/small_perstep/events.out.tfevents.1795296973.vm.10428.0'),
    );
    const s = r.series.get('train/metric_00');
    for (const i of [0, 1, 500, 999]) expect(s.wallTime(i)).toBeCloseTo(1.6e9 + 0.1 * s.step(i), 1);
  });
});

describe('every corpus event file', () => {
  const files = corpusFiles();

  it('finds the whole corpus', () => {
    expect(files.length).toBe(25);
  });

  it.each(files)('%s reads with no error, data CRCs all valid', (rel) => {
    const r = readEventFile(join(FIXTURES, rel));
    expect(r.errors).toEqual([]);
    expect(r.fileVersion).toBe('brain.Event:2');
    expect(r.bytes).toBe(fixture(rel).length);
    // Checking every data CRC finds nothing and changes nothing.
    const checked = readEventFile(join(FIXTURES, rel), { checkDataCrc: true });
    expect(digest(checked)).toBe(digest(r));
    // The fd-based reader and the in-memory stream agree.
    expect(digest(readWhole(fixture(rel)))).toBe(digest(r));
  });
});

describe('what real writers put in event files', () => {
  const read = (rel: string) => readEventFile(join(FIXTURES, rel));

  it('counts records like the corpus manifest (file_version and source_metadata events included)', () => {
    const manifest = new Map(
      readFileSync(join(FIXTURES, 'ORIGIN.md'), 'utf8')
        .split('\n')
        .flatMap((l) => {
          const m = /^\| `([^`]+)` .*records=(\d+)/.exec(l);
          return m ? [[m[1]!, Number(m[2])] as const] : [];
        }),
    );
    expect(manifest.size).toBe(22);
    for (const [rel, records] of manifest) expect([rel, read(rel).records]).toEqual([rel, records]);
  });

  it('TF2 tensor scalars (katib, Keras): plugin name only on the first value, values decoded', () => {
    const r = read('kubeflow__katib/events.out.tfevents.1637681485.2d662933d616.19.0.v2');
    expect(r.series.tags()).toEqual(['accuracy', 'loss']);
    const acc = r.series.get('accuracy');
    expect(acc.length).toBe(10);
    for (let i = 0; i < acc.length; i++) {
      expect(acc.value(i)).toBeGreaterThan(0);
      expect(acc.value(i)).toBeLessThanOrEqual(1);
    }
  });

  it('an animated GIF image summary is skipped without error (dreamer)', () => {
    const r = read(
      'epistoteles__dreamer-goal-conditioned/events.out.tfevents.1621811557.korbinian.105583.13.v2',
    );
    expect(r.records).toBe(152);
    expect(r.series.pointCount()).toBe(150);
    expect(r.series.tags().some((t) => t.includes('gif'))).toBe(false);
  });

  it('classic histograms become count/min/max/mean series, kept out of the scalars', () => {
    const r = read('0pk0__rl4avs/events.out.tfevents.1756827963.pkMac.local.46956.0');
    expect(r.series.pointCount()).toBe(48);
    expect(r.histograms.size).toBe(16);
    for (const tag of r.histograms.tags().filter((t) => t.endsWith('/count'))) {
      const base = tag.slice(0, -'/count'.length);
      const count = r.histograms.get(tag).value(0);
      const min = r.histograms.get(`${base}/min`).value(0);
      const max = r.histograms.get(`${base}/max`).value(0);
      const mean = r.histograms.get(`${base}/mean`).value(0);
      expect(count).toBeGreaterThan(0);
      expect(min).toBeLessThanOrEqual(mean);
      expect(mean).toBeLessThanOrEqual(max);
      expect(r.series.has(base)).toBe(false);
    }
  });

  it('TF1 files with graph_def, histograms and custom_scalars (wandb fixtures)', () => {
    const complex = read('wandb__wandb/events.out.tfevents.111.complex.localdomain');
    expect(complex.series.pointCount()).toBe(747);
    expect(complex.histograms.pointCount()).toBe(36 * 4);
    const test = read('wandb__wandb/events.out.tfevents.111.test.localdomain');
    expect(test.series.pointCount()).toBe(28);
  });

  it('SB3 PPO scalars carry the names the health rules look for', () => {
    const r = read('0pk0__rl4avs/events.out.tfevents.1754323433.MacBookPro.75921.0');
    expect(r.series.tags()).toEqual(
      expect.arrayContaining(['train/approx_kl', 'train/clip_fraction', 'rollout/ep_rew_mean']),
    );
  });

  it('files that only hold the header event have no series', () => {
    for (const rel of [
      '0pk0__rl4avs/events.out.tfevents.1754327330.MacBookPro.76839.0',
      'epistoteles__dreamer-goal-conditioned/events.out.tfevents.1621804771.korbinian.91462.13.v2',
    ]) {
      const r = read(rel);
      expect(r.records).toBe(1);
      expect(r.series.size).toBe(0);
      expect(r.errors).toEqual([]);
    }
  });

  it('the fixture copies are intact', () => {
    expect(existsSync(join(FIXTURES, 'ORIGIN.md'))).toBe(true);
  });
});
