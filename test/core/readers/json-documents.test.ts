// Whole-document JSON readers: history arrays, trainer_state.json, training_progress.json.

import { describe, expect, it } from 'vitest';
import { createReader, readSource } from '../../../src/core/sources/registry';
import { JsonHistoryReader } from '../../../src/core/text-formats/json-history-reader';
import { TrainerStateReader } from '../../../src/core/text-formats/trainer-state-reader';
import { TrainingProgressReader } from '../../../src/core/text-formats/training-progress-reader';
import { summarize } from '../../../src/core/series/scalar-series';
import { fixture, MemoryFS, snapshot } from './helpers';

describe('JSON history', () => {
  it('reads the DQN training_metrics.json array keyed by episode', async () => {
    const r = await readSource(fixture('progress/Whomstt__Atari-Breakout-DQN/training_metrics.json'), 'json');
    expect(r.errors).toEqual([]);
    expect(r.records).toBe(100);
    expect(r.series.tags()).toEqual(['episodeReward', 'epsilon', 'loss', 'runningReward']);
    const loss = r.series.get('loss');
    expect(loss.step(57)).toBe(57);
    expect(loss.value(57)).toBe(0.3862282633781433);
    expect(summarize(loss).sum).toBeCloseTo(15.082001623697579, 12);
    expect(r.series.get('runningReward').value(57)).toBe(1.103448275862069);
  });

  it('appends only new entries when the file is rewritten longer, and starts over when shorter', async () => {
    const fs = new MemoryFS();
    fs.set('/h.json', JSON.stringify([{ epoch: 0, r: 1 }]));
    const r = new JsonHistoryReader('/h.json', { io: fs });
    await r.readMore();
    fs.set(
      '/h.json',
      JSON.stringify([
        { epoch: 0, r: 1 },
        { epoch: 1, r: 2 },
      ]),
      1_700_000_001,
    );
    expect((await r.readMore()).records).toBe(1);
    expect([...r.result().series.get('r').values()]).toEqual([1, 2]);
    fs.set('/h.json', JSON.stringify([{ epoch: 0, r: 9 }]), 1_700_000_002);
    await r.readMore();
    expect([...r.result().series.get('r').values()]).toEqual([9]);
  });

  it('keeps the last good content while the file is half-written, and reports it only when final', async () => {
    const fs = new MemoryFS();
    const full = JSON.stringify([
      { step: 1, a: 1 },
      { step: 2, a: 2 },
    ]);
    fs.set('/h.json', full.slice(0, 15));
    const r = new JsonHistoryReader('/h.json', { io: fs });
    expect(await r.readMore()).toEqual({ records: 0, errors: [] });
    fs.set('/h.json', full, 1_700_000_001);
    await r.readMore();
    fs.set('/h.json', full.slice(0, full.length - 3), 1_700_000_002);
    expect(await r.readMore()).toEqual({ records: 0, errors: [] });
    expect([...r.result().series.get('a').values()]).toEqual([1, 2]);
    const last = await r.readMore({ final: true });
    expect(last.errors.map((e) => e.kind)).toEqual(['truncated']);
  });

  it('gives typed errors for broken, wrong-shaped and too-large documents', async () => {
    const fs = new MemoryFS();
    fs.set('/a.json', '[{"a": 1}, }');
    fs.set('/b.json', '{"a": 1}');
    fs.set('/c.json', JSON.stringify([{ a: 1 }, { a: 2 }]));
    const kinds = async (p: string, max?: number) =>
      (
        await readSource(p, 'json', { io: fs, ...(max === undefined ? {} : { maxJsonBytes: max }) })
      ).errors.map((e) => e.kind);
    expect(await kinds('/a.json')).toEqual(['decode']);
    expect(await kinds('/b.json')).toEqual(['decode']);
    expect(await kinds('/c.json', 10)).toEqual(['too-large']);
    expect(await kinds('/missing.json')).toEqual(['io']);
  });
});

describe('trainer_state.json', () => {
  it('reads the Whisper Seq2SeqTrainer state: loss and eval entries, progress, config', async () => {
    const r = await readSource(
      fixture('progress/P4P4N1CK__whisper-large-v2-japanese-5k-steps/trainer_state.json'),
      'trainer_state',
    );
    expect(r.errors).toEqual([]);
    expect(r.records).toBe(206);
    expect(summarize(r.series.get('loss')).count).toBe(200);
    const wer = r.series.get('eval_wer');
    expect(wer.step(0)).toBe(1000);
    expect(wer.value(0)).toBe(0.78878255063432);
    expect(summarize(wer).sum).toBeCloseTo(3.768973959492544, 12);
    expect(r.series.has('step')).toBe(false);
    expect(r.progress).toMatchObject({ fraction: 1, etaSeconds: 0 });
    expect(r.progress?.fields).toMatchObject({
      global_step: 5000,
      max_steps: 5000,
      best_metric: 0.7431560204762965,
    });
    expect(r.config).toMatchObject({ max_steps: 5000, num_train_epochs: 39 });
  });

  it('reads a TRL GRPO state saved under another name (training_logs.json)', async () => {
    const r = await readSource(
      fixture('progress/Rusheel86__Chaos-Economy/training_logs.json'),
      'trainer_state',
    );
    expect(r.errors).toEqual([]);
    expect(r.records).toBe(50);
    const kl = r.series.get('kl');
    const i = [...kl.steps()].indexOf(100);
    expect(kl.value(i)).toBe(0.04808612782508135);
    expect(summarize(r.series.get('reward')).sum).toBeCloseTo(24.914722433686254, 12);
    expect(r.series.has('rewards/format_reward_fn/mean')).toBe(true);
    expect(r.progress?.fraction).toBe(1);
  });

  it('reads the single-entry TRL state and its partial progress', async () => {
    const r = await readSource(
      fixture('progress/Ray-Cheng-11__Tau-Bench-Model-Training/trainer_state.json'),
      'trainer_state',
    );
    expect(r.errors).toEqual([]);
    expect(r.series.get('completions/clipped_ratio').value(0)).toBe(0.9125);
    expect(r.series.get('kl').step(0)).toBe(10);
    expect(r.progress?.fraction).toBe(1);
  });

  it('estimates an ETA from how fast global_step moves between rewrites', async () => {
    const fs = new MemoryFS();
    const state = (g: number) => JSON.stringify({ global_step: g, max_steps: 100, log_history: [] });
    fs.set('/t.json', state(10), 1000);
    const r = new TrainerStateReader('/t.json', { io: fs });
    await r.readMore();
    expect(r.result().progress).toMatchObject({ fraction: 0.1, etaSeconds: null });
    fs.set('/t.json', state(30), 1100);
    await r.readMore();
    expect(r.result().progress?.etaSeconds).toBeCloseTo(350, 6);
  });

  it('gives the one-shot result however the rewrites were cut', async () => {
    const path = fixture('progress/Ray-Cheng-11__Tau-Bench-Model-Training/trainer_state.json');
    const oneShot = snapshot(await readSource(path, 'trainer_state'));
    const text = JSON.stringify({
      global_step: 3,
      max_steps: 9,
      log_history: [
        { step: 1, loss: 1 },
        { step: 2, loss: NaN },
      ],
    });
    const expected = snapshot(await readSource('/x', 'trainer_state', { io: mem('/x', text) }));
    for (let cut = 0; cut < text.length; cut += 3) {
      const fs = mem('/x', text.slice(0, cut));
      const r = createReader('/x', 'trainer_state', { io: fs });
      await r.readMore();
      fs.set('/x', text, 2);
      await r.readMore({ final: true });
      expect(snapshot(r.result())).toEqual(expected);
    }
    expect(oneShot.records).toBe(1);
  });
});

describe('training_progress.json', () => {
  const doc = {
    completed_chunks: 3,
    total_chunks: 12,
    requests_done: 4500,
    latest_checkpoint: 'checkpoints/chunk_3.pt',
    started_at: '2025-01-01T00:00:00Z',
    updated_at: '2025-01-01T01:00:00Z',
    history: [
      { session: 1, completed_chunks: 2, requests_done: 3000, timestamp: 1735690000 },
      { session: 2, completed_chunks: 3, requests_done: 4500, timestamp: 1735693600 },
    ],
  };

  it('computes fraction and ETA from seed 004 fields and turns the session history into series', async () => {
    const r = await readSource('/p.json', 'training_progress', { io: mem('/p.json', JSON.stringify(doc)) });
    expect(r.errors).toEqual([]);
    expect(r.progress?.fraction).toBe(0.25);
    expect(r.progress?.etaSeconds).toBeCloseTo(3 * 3600, 6);
    expect(r.progress?.fields).toMatchObject({
      latest_checkpoint: 'checkpoints/chunk_3.pt',
      requests_done: 4500,
    });
    const h = r.series.get('history/requests_done');
    expect([...h.values()]).toEqual([3000, 4500]);
    expect(h.wallTime(1)).toBe(1735693600);
    expect([...r.series.get('requests_done').values()]).toEqual([4500]);
    expect(r.records).toBe(3);
  });

  it('turns successive contents into snapshot points at the file step', async () => {
    const fs = mem('/p.json', JSON.stringify({ global_step: 10, max_steps: 40, loss: 1.5 }));
    const r = new TrainingProgressReader('/p.json', { io: fs });
    await r.readMore();
    fs.set('/p.json', '{"global_step": 20, "max_st', 2);
    await r.readMore();
    fs.set('/p.json', JSON.stringify({ global_step: 20, max_steps: 40, loss: 0.5 }), 3);
    await r.readMore();
    const loss = r.result().series.get('loss');
    expect([...loss.steps()]).toEqual([10, 20]);
    expect([...loss.values()]).toEqual([1.5, 0.5]);
    expect(r.result().progress?.fraction).toBe(0.5);
  });
});

function mem(path: string, text: string): MemoryFS {
  const fs = new MemoryFS();
  fs.set(path, text, 1);
  return fs;
}
