// A chart's "Download data": visible-window rows of every run, raw values, numbers as `rlwatch export` writes them.

import { describe, expect, test } from 'vitest';
import { viewSession } from '../../../src/shared/session-text';
import { chartCsv, chartJson, chartTable, dataFileName } from '../../../src/shared/charts/data-table';
import { isFloat32Column } from '../../../src/shared/number-text';

const f32 = Math.fround;
const a = {
  run: 'a',
  steps: [0, 10, 20, 30],
  walls: [100, 101, 102, 103],
  values: [f32(0.1), Number.NaN, Infinity, f32(-2.5)],
  origin: 100,
};
const b = {
  run: 'b,"x"',
  steps: [5, 15],
  walls: [200, Number.NaN],
  values: [0.123456789, -Infinity],
  origin: 200,
};

describe('chartTable', () => {
  test('every run, all points when not zoomed, in chart order', () => {
    const t = chartTable('loss', [a, b], null);
    expect(t.runs.map((r) => [r.run, r.steps])).toEqual([
      ['a', [0, 10, 20, 30]],
      ['b,"x"', [5, 15]],
    ]);
  });

  test('a zoomed chart gives only the visible x-window (inclusive), in the chart axis units', () => {
    expect(chartTable('loss', [a, b], { xAxis: 'step', min: 10, max: 20 }).runs.map((r) => r.steps)).toEqual([
      [10, 20],
      [15],
    ]);
    // Relative time: seconds since each run's own first point.
    expect(chartTable('loss', [a], { xAxis: 'relative', min: 2, max: 9 }).runs[0]!.steps).toEqual([20, 30]);
    expect(
      chartTable('loss', [a, b], { xAxis: 'wall', min: 150, max: 250 }).runs.map((r) => r.steps),
    ).toEqual([[], [5]]);
  });

  test('a run keeps the precision its values were read at (the core rule: float32 until a value is not)', () => {
    expect(isFloat32Column([f32(0.1), Number.NaN, Infinity])).toBe(true);
    expect(isFloat32Column([f32(0.1), 0.1])).toBe(false);
    const t = chartTable('loss', [a, b], null);
    expect(t.runs.map((r) => r.isFloat32)).toEqual([true, false]);
  });
});

describe("a composed chart's download", () => {
  test('each line a run and its own tag: rows name both, the file is named by the chart', () => {
    const t = chartTable(
      'reward: rollout vs eval',
      [
        { ...a, tag: 'rollout/ep_rew_mean' },
        { ...a, tag: 'eval/mean_reward', steps: [0, 50], walls: [1, 2], values: [3, 4] },
      ],
      null,
    );
    const rows = chartCsv(t)
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',').slice(0, 3).join(','));
    expect(rows).toEqual([
      'a,rollout/ep_rew_mean,0',
      'a,rollout/ep_rew_mean,10',
      'a,rollout/ep_rew_mean,20',
      'a,rollout/ep_rew_mean,30',
      'a,eval/mean_reward,0',
      'a,eval/mean_reward,50',
    ]);
    const json = JSON.parse(chartJson(t)) as { run: string; tag: string }[];
    expect(json.map((r) => r.tag)).toEqual([
      ...Array(4).fill('rollout/ep_rew_mean'),
      ...Array(2).fill('eval/mean_reward'),
    ]);
    expect(dataFileName(t.tag, 'csv')).toBe('reward_ rollout vs eval.csv');
  });
});

describe('sessions of a chart download', () => {
  test("each row says which session wrote it: from the live view's restart marks, or an earlier session's own", () => {
    // Session 1 wrote 0..40, a resume at 20 (session 2) wrote 20..30, a restart at 10 (session 3) wrote 10..15:
    // the view holds session 1's 0..9, then session 3's 10..15 (session 2 was cut whole).
    const restarts = [{ step: 20 }, { step: 10 }];
    expect([0, 9, 10, 15].map((st) => viewSession(restarts, st))).toEqual([1, 1, 3, 3]);
    expect(viewSession([{ step: 20 }], 25)).toBe(2);
    expect(viewSession([{ step: 20 }], 19)).toBe(1);
    expect(viewSession([], 5)).toBe(1);
    const t = chartTable(
      'kl',
      [
        { run: 'r', steps: [0, 9, 10, 15], walls: [1, 2, 3, 4], values: [1, 2, 3, 4], origin: 1, restarts },
        { run: 'r', steps: [0, 40], walls: [1, 5], values: [9, 9], origin: 1, session: 1 },
      ],
      null,
    );
    expect(
      chartCsv(t)
        .trimEnd()
        .split('\n')
        .map((l) => l.split(',').at(-1)),
    ).toEqual(['session', '1', '1', '3', '3', '1', '1']);
  });
});

describe('chartCsv and chartJson', () => {
  const table = chartTable('train/loss, total', [a, b], null);

  test('CSV: long format, quoted fields, float32 shortest, NaN and ±Infinity spelled out, no wall time empty', () => {
    expect(chartCsv(table)).toBe(
      [
        'run,tag,step,wall_time,value,session',
        'a,"train/loss, total",0,100,0.1,1',
        'a,"train/loss, total",10,101,NaN,1',
        'a,"train/loss, total",20,102,Infinity,1',
        'a,"train/loss, total",30,103,-2.5,1',
        '"b,""x""","train/loss, total",5,200,0.123456789,1',
        '"b,""x""","train/loss, total",15,,-Infinity,1',
        '',
      ].join('\n'),
    );
  });

  test('CSV: a run or tag a spreadsheet would run as a formula is text; a negative value stays a number', () => {
    const run = { run: '@SUM(A1)', steps: [0], walls: [100], values: [-0.43], origin: 100 };
    expect(chartCsv(chartTable('=1+2', [run], null))).toBe(
      "run,tag,step,wall_time,value,session\n'@SUM(A1),'=1+2,0,100,-0.43,1\n",
    );
  });

  test('JSON: the same rows as objects; NaN and ±Infinity as strings (JSON has none), no wall time null', () => {
    const rows = JSON.parse(chartJson(table)) as unknown[];
    expect(rows).toEqual([
      { run: 'a', tag: 'train/loss, total', step: 0, wall_time: 100, value: 0.1, session: 1 },
      { run: 'a', tag: 'train/loss, total', step: 10, wall_time: 101, value: 'NaN', session: 1 },
      { run: 'a', tag: 'train/loss, total', step: 20, wall_time: 102, value: 'Infinity', session: 1 },
      { run: 'a', tag: 'train/loss, total', step: 30, wall_time: 103, value: -2.5, session: 1 },
      { run: 'b,"x"', tag: 'train/loss, total', step: 5, wall_time: 200, value: 0.123456789, session: 1 },
      { run: 'b,"x"', tag: 'train/loss, total', step: 15, wall_time: null, value: '-Infinity', session: 1 },
    ]);
    expect(JSON.parse(chartJson(chartTable('t', [], null)))).toEqual([]);
  });

  test('every value parses back to the point the chart holds', () => {
    const values = Array.from({ length: 500 }, (_, i) => f32(Math.sin(i) * 10 ** ((i % 13) - 6)));
    const s = {
      run: 'r',
      steps: values.map((_, i) => i),
      walls: values.map((_, i) => 1e9 + i / 3),
      values,
      origin: 1e9,
    };
    const lines = chartCsv(chartTable('t', [s], null))
      .trim()
      .split('\n')
      .slice(1);
    lines.forEach((line, i) => {
      const [, , step, wall, value] = line.split(',');
      expect([Number(step), Number(wall), f32(Number(value))]).toEqual([i, s.walls[i], values[i]]);
    });
    const rows = JSON.parse(chartJson(chartTable('t', [s], null))) as { value: number }[];
    expect(rows.map((r) => f32(r.value))).toEqual(values);
  });

  test('file names keep the tag readable and safe, as the export names its figures', () => {
    expect(dataFileName('train/loss total', 'csv')).toBe('train__loss total.csv');
    expect(dataFileName('///', 'json')).toBe('__.json');
    expect(dataFileName('CON', 'csv')).toBe('CON_.csv');
    expect(dataFileName('学'.repeat(240), 'json')).toBe(`${'学'.repeat(50)}.json`);
  });
});
