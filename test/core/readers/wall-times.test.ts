// Sources without wall times say so (NaN, never the file's mtime); real times are read where the file has them.

import { describe, expect, it } from 'vitest';
import { longCsvOf } from '../../../src/core/export/tables';
import { readSource } from '../../../src/core/sources/registry';
import { chartJson, chartTable } from '../../../src/shared/charts/data-table';
import { RunSeries } from '../../../src/shared/charts/series-model';
import type { SourceFormatName } from '../../../src/shared/formats';
import { fixture, MemoryFS } from './helpers';

const UNTIMED: [string, SourceFormatName][] = [
  ['progress/P4P4N1CK__whisper-large-v2-japanese-5k-steps/trainer_state.json', 'trainer_state'],
  ['progress/Ray-Cheng-11__Tau-Bench-Model-Training/trainer_state.json', 'trainer_state'],
  ['progress/CS15B001__HER_Improvements/progress.04_29_20_21_32.csv', 'csv'],
  ['progress/AaravTandon24__adaptive-npc-rl/training_metrics.csv', 'csv'],
  ['progress/Whomstt__Atari-Breakout-DQN/training_metrics.json', 'json'],
  ['progress/epistoteles__dreamer-goal-conditioned/metrics.jsonl', 'jsonl'],
];

describe('sources without wall times', () => {
  it.each(UNTIMED)('%s: every point has none', async (rel, format) => {
    const r = await readSource(fixture(rel), format);
    expect(r.series.pointCount()).toBeGreaterThan(0);
    for (const [tag, s] of r.series.entries()) {
      expect(s.untimed, tag).toBe(s.length);
      for (let i = 0; i < s.length; i++) expect(s.wallTime(i)).toBeNaN();
    }
  });

  it('an HF eval/loss logged hours after the first loss keeps its step, not a shared invented time', async () => {
    const r = await readSource(
      fixture('progress/P4P4N1CK__whisper-large-v2-japanese-5k-steps/trainer_state.json'),
      'trainer_state',
    );
    const evalLoss = r.series.get('eval_loss');
    expect(evalLoss.step(0)).toBe(1000);
    expect(evalLoss.wallTime(0)).toBeNaN();
  });

  it('exports leave their wall_time empty (CSV) or null (JSON), never a made-up time', async () => {
    const r = await readSource(
      fixture('progress/P4P4N1CK__whisper-large-v2-japanese-5k-steps/trainer_state.json'),
      'trainer_state',
    );
    const s = r.series.get('eval_loss');
    const csv = [...longCsvOf('whisper', new Map([['eval_loss', [s]]]), () => [])].join('');
    expect(csv.split('\n')[1]).toBe('whisper,eval_loss,1000,,0.320997953414917,1');
    // The chart's "Download data" JSON.
    const drawn = new RunSeries('whisper');
    drawn.steps = [...s.steps()];
    drawn.walls = [...s.wallTimes()];
    drawn.values = [...s.values()];
    const rows = JSON.parse(chartJson(chartTable('eval_loss', [drawn], null))) as { wall_time: unknown }[];
    expect(rows.map((x) => x.wall_time)).toEqual([null, null, null, null, null]);
  });
});

describe('sources with wall times', () => {
  const read = async (path: string, text: string, format: SourceFormatName) => {
    const io = new MemoryFS();
    io.set(path, text, 1_800_000_000);
    return readSource(path, format, { io });
  };

  it('training_progress.json: each session of its history at its own last_trained time', async () => {
    // The shape the trainer in issue 21 wrote: a session history with an ISO `last_trained` per session.
    const doc = {
      global_step: 45056,
      total_steps: 100000,
      updated_at: '2025-06-01T18:00:00Z',
      history: [
        { session: 1, global_step: 32768, last_trained: '2025-06-01T10:00:00Z' },
        { session: 2, global_step: 45056, last_trained: '2025-06-01T18:00:00Z' },
      ],
    };
    const r = await read('/training_progress.json', JSON.stringify(doc), 'training_progress');
    const h = r.series.get('history/session');
    expect([h.wallTime(0), h.wallTime(1)]).toEqual([
      Date.parse('2025-06-01T10:00:00Z') / 1000,
      Date.parse('2025-06-01T18:00:00Z') / 1000,
    ]);
    expect(r.series.get('total_steps').wallTime(0)).toBe(Date.parse('2025-06-01T18:00:00Z') / 1000);
  });

  it('training_progress.json without any time: none', async () => {
    const r = await read(
      '/training_progress.json',
      JSON.stringify({ global_step: 10, history: [{ global_step: 10, loss: 1 }] }),
      'training_progress',
    );
    expect(r.series.get('history/loss').wallTime(0)).toBeNaN();
    expect(r.series.get('global_step').wallTime(0)).toBeNaN();
  });

  it('monitor.csv: t_start plus each row t', async () => {
    const r = await read(
      '/0.monitor.csv',
      '#{"t_start": 1595878270.4147072, "env_id": "X"}\nr,l,t\n1.5,10,3.25\n2.5,12,7.5\n',
      'csv',
    );
    const s = r.series.get('r');
    expect([s.wallTime(0), s.wallTime(1)]).toEqual([1595878270.4147072 + 3.25, 1595878270.4147072 + 7.5]);
  });

  it('JSONL with an epoch time field', async () => {
    const r = await read('/metrics.jsonl', '{"step": 1, "time": 1700000123.5, "loss": 2}\n', 'jsonl');
    expect(r.series.get('loss').wallTime(0)).toBe(1700000123.5);
  });
});
