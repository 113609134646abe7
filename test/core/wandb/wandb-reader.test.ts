// W&B offline-run reader: every corpus run, the corrupt and killed ones, synthetic multi-block logs.

import { describe, expect, it } from 'vitest';
import { readSource } from '../../../src/core/sources/registry';
import { summarize } from '../../../src/core/series/scalar-series';
import { WandbReader } from '../../../src/core/wandb/wandb-reader';
import { fixture, MemoryFS, snapshot } from '../readers/helpers';
import { frameLog, rec } from './wandb-log-writer';

const W = 'wandb/480284856__RLHF_Training';
const LEET = 'wandb/wandb__wandb';

describe('W&B corpus runs', () => {
  it('reads a finished ColossalAI SFT run: 78 history steps, summary, config.yaml, exit code', async () => {
    const r = await readSource(fixture(`${W}/run-20230420_073822-clnzftry/run-clnzftry.wandb`), 'wandb');
    expect(r.errors).toEqual([]);
    expect(r.records).toBe(189);
    const loss = r.series.get('loss');
    expect(summarize(loss)).toMatchObject({ count: 78, firstStep: 0, lastStep: 77, last: 0.1046142578125 });
    expect(loss.wallTime(77)).toBeCloseTo(1681976417.5275896, 3);
    expect(r.series.has('_step')).toBe(false);
    expect(r.series.has('_runtime')).toBe(false);
    expect(r.series.tags().some((t) => t.startsWith('system/'))).toBe(true);
    expect(r.summary).toMatchObject({ loss: 0.1046142578125, _step: 77 });
    expect(r.config?.['_wandb']).toMatchObject({ cli_version: '0.14.2', framework: 'huggingface' });
    expect(r.progress?.fields).toMatchObject({
      run_id: 'clnzftry',
      project: 'Coati',
      exit_code: 255,
      finished: true,
    });
  });

  it('reads multi-chunk (FIRST/LAST) records of the 0.14 offline run', async () => {
    const r = await readSource(
      fixture(`${W}/offline-run-20230413_033614-x199n1yz/run-x199n1yz.wandb`),
      'wandb',
    );
    expect(r.errors).toEqual([]);
    expect(r.records).toBe(254);
    expect(summarize(r.series.get('loss'))).toMatchObject({
      count: 16,
      lastStep: 15,
      last: 0.334197998046875,
    });
  });

  it('reports the killed run’s cut-off tail as truncated and keeps its 14 stats samples', async () => {
    const r = await readSource(
      fixture(`${W}/offline-run-20230413_090116-iotz2fip/run-iotz2fip.wandb`),
      'wandb',
    );
    expect(r.errors).toEqual([expect.objectContaining({ kind: 'truncated', offset: 15799 })]);
    expect(r.records).toBe(20);
    expect(summarize(r.series.get('system/cpu')).count).toBe(14);
    expect(r.progress?.fields['finished']).toBe(false);
  });

  it('stops at the flipped CRC byte of bad-crc.wandb with bad-data-crc, keeping the 2 good records', async () => {
    const r = await readSource(fixture(`${LEET}/leet-wire/bad-crc.wandb`), 'wandb');
    expect(r.errors).toEqual([expect.objectContaining({ kind: 'bad-data-crc', offset: 143 })]);
    expect(r.records).toBe(2);
    expect([...r.series.get('wire/metric').values()]).toEqual([10]);
  });

  it('reads the Go writer’s nested keys, history steps, config and summary (single-tiny)', async () => {
    const r = await readSource(
      fixture(`${LEET}/leet-single-tiny/run-20260102_030405-tiny0001/run-tiny0001.wandb`),
      'wandb',
    );
    expect(r.errors).toEqual([]);
    expect(r.records).toBe(74);
    expect(r.series.tags()).toEqual(['eval/step_fn', 'train/loss', 'train/sine']);
    expect(summarize(r.series.get('train/loss'))).toMatchObject({
      count: 50,
      lastStep: 49,
      last: 0.285,
      max: 2,
    });
    expect(r.config).toEqual({ batch_size: 32, epochs: 5, lr: 0.001, optimizer: 'adam', seed: 1234 });
    expect(r.summary).toMatchObject({ 'train/sine': 0.353408, best_step: 49 });
  });

  it('reads system stats as system/* tags dated by the record timestamps', async () => {
    const r = await readSource(
      fixture(`${LEET}/leet-system-stats/run-20260102_030405-sysstats1/run-sysstats1.wandb`),
      'wandb',
    );
    expect(r.errors).toEqual([]);
    const gpu = r.series.get('system/gpu.0.gpu');
    expect(gpu.length).toBe(60);
    expect(gpu.wallTime(0)).toBeGreaterThanOrEqual(1767323045);
    expect(r.series.has('system/gpu.0.memoryAllocated')).toBe(true);
  });

  it('reads the remaining corpus runs without error', async () => {
    for (const f of [
      `${W}/run-20230421_071625-4hjc4zce/run-4hjc4zce.wandb`,
      `${LEET}/leet-workspace-multi/run-20260102_030205-wm3live/run-wm3live.wandb`,
      `${LEET}/leet-workspace-multi/run-20260102_030305-wm4crash/run-wm4crash.wandb`,
      `${LEET}/offline-run-20210216_154407-g9dvvkua/run-g9dvvkua.wandb`,
    ]) {
      const r = await readSource(fixture(f), 'wandb');
      expect(r.errors, f).toEqual([]);
      expect(r.records, f).toBeGreaterThan(0);
    }
    const crash = await readSource(
      fixture(`${LEET}/leet-workspace-multi/run-20260102_030305-wm4crash/run-wm4crash.wandb`),
      'wandb',
    );
    expect(crash.progress?.fields).toMatchObject({ exit_code: 1, finished: true });
  });
});

describe('W&B log framing', () => {
  const big = 'x'.repeat(70_000);
  const records = [
    rec.run('abc', 1_700_000_000),
    rec.history([
      ['_step', '0'],
      ['loss', '1.5'],
      ['_runtime', '2'],
    ]),
    rec.output(big),
    rec.history(
      [
        ['_step', '1'],
        ['a/b', 'NaN'],
        ['loss', '{"x": 3, "_type": "histogram"}'],
      ],
      true,
    ),
    rec.history([
      ['_step', '2'],
      ['loss', 'Infinity'],
      ['media', '{"_type": "image-file"}'],
      ['nested', '{"k": 4}'],
    ]),
    rec.stats(1_700_000_100, [['cpu', '12.5']]),
    rec.summary([['loss', '0.5']]),
    rec.exit(0),
  ];
  const bytes = frameLog(records);

  const readBytes = async (b: Uint8Array) => {
    const fs = new MemoryFS();
    fs.set('/r/run.wandb', b);
    const r = new WandbReader('/r/run.wandb', { io: fs });
    await r.readMore({ final: true });
    return r.result();
  };

  it('assembles a record spanning three blocks and decodes history, stats, summary, exit', async () => {
    expect(bytes.length).toBeGreaterThan(2 * 32768);
    const r = await readBytes(bytes);
    expect(r.errors).toEqual([]);
    expect(r.records).toBe(records.length);
    expect([...r.series.get('loss').values()]).toEqual([1.5, Infinity]);
    expect(r.series.get('loss').wallTime(0)).toBe(1_700_000_002);
    expect([...r.series.get('a/b').values()]).toEqual([Number.NaN]);
    expect([...r.series.get('nested/k').steps()]).toEqual([2]);
    expect(r.series.has('media')).toBe(false);
    expect(r.series.get('system/cpu').wallTime(0)).toBe(1_700_000_100);
    expect(r.config).toEqual({ lr: 0.001 });
    expect(r.summary).toEqual({ loss: 0.5 });
  });

  it('gives the one-shot result when the file grows at many split points', async () => {
    const oneShot = snapshot(await readBytes(bytes));
    const cuts: number[] = [];
    for (let c = 0; c < bytes.length; c += 997) cuts.push(c);
    cuts.push(32760, 32768, 32775, 65536, bytes.length - 1);
    for (const cut of cuts) {
      const fs = new MemoryFS();
      fs.set('/g.wandb', bytes.slice(0, cut));
      const r = new WandbReader('/g.wandb', { io: fs });
      const first = await r.readMore();
      expect(first.errors).toEqual([]);
      fs.set('/g.wandb', bytes);
      await r.readMore();
      await r.readMore({ final: true });
      expect(snapshot(r.result())).toEqual(oneShot);
    }
  });

  it('reports a bad header, a short file and a cut-off multi-block record as typed errors', async () => {
    const bad = bytes.slice();
    bad[1] = 0;
    expect((await readBytes(bad)).errors.map((e) => e.kind)).toEqual(['decode']);
    expect((await readBytes(bytes.slice(0, 4))).errors.map((e) => e.kind)).toEqual(['truncated']);
    const cut = await readBytes(bytes.slice(0, 40_000));
    expect(cut.errors.map((e) => e.kind)).toEqual(['truncated']);
    expect(cut.records).toBe(2);
  });
});

describe('W&B files/config.yaml', () => {
  it('reports a malformed or oversized config.yaml as a typed error once, and reads the fixed file', async () => {
    const fs = new MemoryFS();
    fs.set('/r/run.wandb', frameLog([rec.run('abc', 1_700_000_000)]));
    fs.set('/r/files/config.yaml', 'a: &a [x, x]\nb: [*a, *a, *a\n');
    const r = new WandbReader('/r/run.wandb', { io: fs });
    await r.readMore();
    expect(r.result().errors).toMatchObject([
      { kind: 'decode', message: expect.stringMatching(/^config\.yaml/) },
    ]);
    await r.readMore();
    expect(r.result().errors).toHaveLength(1);
    fs.set('/r/files/config.yaml', 'k: ' + 'x'.repeat(5 << 20), 1_700_000_001);
    await r.readMore();
    expect(r.result().errors.at(-1)).toMatchObject({ kind: 'too-large' });
    fs.set('/r/files/config.yaml', 'seed:\n  desc: null\n  value: 7\n', 1_700_000_002);
    await r.readMore();
    expect(r.result().config).toMatchObject({ seed: 7, lr: 0.001 });
  });
});
