// JSONL reader: Dreamer metrics.jsonl from the corpus, partial lines, bad lines, tailing.

import { describe, expect, it } from 'vitest';
import { readSource } from '../../../src/core/sources/registry';
import { JsonlReader } from '../../../src/core/text-formats/jsonl-reader';
import { summarize } from '../../../src/core/series/scalar-series';
import { fixture, MemoryFS, snapshot } from './helpers';

async function readText(text: string) {
  const fs = new MemoryFS();
  fs.set('/m.jsonl', text);
  const r = new JsonlReader('/m.jsonl', { io: fs });
  await r.readMore({ final: true });
  return r.result();
}

describe('JSONL envelopes', () => {
  it("reads verl's file logger lines under verl's own tag names, stepped by its step", async () => {
    const r = await readText(
      '{"step": 1, "data": {"actor/entropy": 0.61, "actor/kl_loss": 0.001, "response_length/mean": 212.5}}\n' +
        '{"step": 2, "data": {"actor/entropy": 0.58, "actor/kl_loss": 0.002, "response_length/mean": 230}}\n',
    );
    expect(r.errors).toEqual([]);
    expect(r.series.tags()).toEqual(['actor/entropy', 'actor/kl_loss', 'response_length/mean']);
    expect([...r.series.get('actor/entropy').steps()]).toEqual([1, 2]);
    expect([...r.series.get('actor/kl_loss').values()]).toEqual([0.001, 0.002]);
  });

  it('keeps a data object that sits beside other metrics as a namespace', async () => {
    const r = await readText('{"step": 1, "loss": 0.5, "data": {"fraction": 0.2}}\n');
    expect(r.series.tags()).toEqual(['data/fraction', 'loss']);
  });
});

describe('JSONL on the corpus', () => {
  it('reads Dreamer metrics.jsonl keyed by step', async () => {
    const r = await readSource(
      fixture('progress/epistoteles__dreamer-goal-conditioned/metrics.jsonl'),
      'jsonl',
    );
    expect(r.errors).toEqual([]);
    expect(r.records).toBe(86);
    expect(r.series.tags()).toEqual(['episodes', 'train/length', 'train/return']);
    const ret = r.series.get('train/return');
    expect(ret.step(20)).toBe(1050);
    expect(ret.value(20)).toBe(-48);
    expect(summarize(ret).sum).toBe(-4091);
    expect(summarize(ret).lastStep).toBe(4300);
  });

  it('reads every corpus JSONL file without error', async () => {
    for (const f of ['metrics.dmc_walker_walk-1.jsonl', 'metrics.fetch-reach-1.jsonl']) {
      const r = await readSource(fixture(`progress/epistoteles__dreamer-goal-conditioned/${f}`), 'jsonl');
      expect(r.errors).toEqual([]);
      expect(r.records).toBeGreaterThan(0);
    }
  });
});

describe('JSONL semantics', () => {
  it('accepts Python NaN/Infinity tokens, nested objects, and reports bad lines by offset', async () => {
    const r = await readText(
      '{"step": 1, "loss": NaN, "m": {"a": 2}}\nnot json\n[1]\n{"step": 2, "loss": -Infinity, "s": "x"}\n',
    );
    expect([...r.series.get('loss').values()]).toEqual([Number.NaN, -Infinity]);
    expect([...r.series.get('m/a').steps()]).toEqual([1]);
    expect(r.series.has('s')).toBe(false);
    expect(r.errors.map((e) => `${e.kind}@${e.offset}`)).toEqual(['decode@40', 'decode@49']);
    expect(r.records).toBe(2);
  });

  it('reports a cut-off last line of a finished file as truncated', async () => {
    const r = await readText('{"step": 1, "a": 1}\n{"step": 2, "a"');
    expect(r.records).toBe(1);
    expect(r.errors).toEqual([expect.objectContaining({ kind: 'truncated', offset: 20 })]);
  });

  it('consumes a complete last line without a newline at the end of a finished file', async () => {
    const r = await readText('{"step": 1, "a": 1}\n{"step": 2, "a": 5}');
    expect([...r.series.get('a').values()]).toEqual([1, 5]);
    expect(r.errors).toEqual([]);
  });

  it('waits for a partial line while following, then gives the one-shot result at every split', async () => {
    const text = '{"step": 1, "a": 1.5}\n{"step": 2, "a": NaN, "b": 3}\n\n{"b": 4}\n';
    const bytes = new TextEncoder().encode(text);
    const oneShot = snapshot(await readText(text));
    expect(oneShot.records).toBe(3);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const fs = new MemoryFS();
      const r = new JsonlReader('/g.jsonl', { io: fs });
      fs.set('/g.jsonl', bytes.slice(0, cut));
      const first = await r.readMore();
      expect(first.errors).toEqual([]);
      fs.set('/g.jsonl', bytes);
      await r.readMore();
      await r.readMore({ final: true });
      expect(snapshot(r.result())).toEqual(oneShot);
    }
  });
});
