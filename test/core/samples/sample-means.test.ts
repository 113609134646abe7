// Sample sources' number columns charted as per-step means (and the completion's mean length): exact against a Python
// json oracle on the fixtures, closed as steps complete on a live file, bounded, shown by inspect, judged by no rule.

import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { HealthEngine, resolveThresholds, type AlertTransition } from '../../../src/core/health';
import { inspectPath } from '../../../src/core/inspect';
import { STEP_KEYS, WALL_KEYS } from '../../../src/core/readers/rows';
import type { SourceReadResult } from '../../../src/core/readers/types';
import { COMPLETIONS_SETTLED_MS, CompletionsReader } from '../../../src/core/samples/completions';
import { codePoints, SAMPLE_MEAN_COLUMNS } from '../../../src/core/samples/sample-means';
import { SampleStore } from '../../../src/core/samples/sample-store';
import { SeriesSet } from '../../../src/core/series/series-set';
import { readSource } from '../../../src/core/sources/registry';
import { createWorkspace } from '../../../src/core/workspace/create';
import { classifyTag, groupOf } from '../../../src/shared/catalog';
import { isSampleMeanTag, sampleCharsTag, sampleMeanTag } from '../../../src/shared/samples';
import { writeCompletionsJsonl, writeWandbTables } from '../../helpers/samples-fixtures';
import { waitFor } from '../../helpers/wait-for';

const tmp = mkdtempSync(join(tmpdir(), 'rlwatch-sample-means-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * The oracle: Python's json over the rows of each step (a step is a run of consecutive rows with one step), the
 * output column named, axis columns left out. A column is charted from its first finite number on (at most 32 of
 * them, first seen first); at a step its mean is the sum (left to right, as floats) over its non-null values divided
 * by their count, unless one of them is not a finite number. The output's mean length is Python's len (code points).
 */
const ORACLE = String.raw`
import json, math, sys
kind, path, output = sys.argv[1], sys.argv[2], sys.argv[3]
axes = set(json.loads(sys.argv[4]))
step_keys = json.loads(sys.argv[5])
def num(v):
    return type(v) in (int, float) and math.isfinite(v)
groups = []  # [step, [rows]]
if kind == 'jsonl':
    last = 0
    for line in open(path, encoding='utf-8'):
        if not line.strip():
            continue
        o = json.loads(line)
        low = {k.lower(): k for k in reversed(list(o))}
        key = next((low[k] for k in step_keys if k in low), None)
        if key is not None and type(o[key]) in (int, float):
            last = o[key]
        if groups and groups[-1][0] == last:
            groups[-1][1].append(o)
        else:
            groups.append([last, [o]])
else:
    for step, table in json.loads(sys.argv[6]):
        t = json.load(open(table, encoding='utf-8'))
        groups.append([step, [dict(zip(t['columns'], row)) for row in t['data']]])
charted = []
out = {}
for step, rows in groups:
    for r in rows:
        for k, v in r.items():
            if k.lower() in axes or k == output or k in charted or len(charted) >= 32:
                continue
            if num(v):
                charted.append(k)
    for k in charted:
        vals = [r[k] for r in rows if r.get(k) is not None]
        if not vals or not all(num(v) for v in vals):
            continue
        s = 0.0
        for v in vals:
            s += v
        out.setdefault(k, []).append([step, s / len(vals)])
    texts = [r[output] for r in rows if isinstance(r.get(output), str)]
    if texts:
        out.setdefault(output + ' chars', []).append([step, sum(len(t) for t in texts) / len(texts)])
print(json.dumps(out))
`;

function oracle(
  kind: 'jsonl' | 'tables',
  path: string,
  output: string,
  tables: [number, string][] = [],
): Record<string, [number, number][]> {
  const axes = [...STEP_KEYS, ...WALL_KEYS].map((k) => k.toLowerCase());
  return JSON.parse(
    execFileSync(
      'python3',
      [
        '-c',
        ORACLE,
        kind,
        path,
        output,
        JSON.stringify(axes),
        JSON.stringify(STEP_KEYS),
        JSON.stringify(tables),
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    ).toString(),
  ) as Record<string, [number, number][]>;
}

/** The derived series of a read, as the oracle writes them: column → [step, mean] pairs. */
function derived(series: SeriesSet, source: string, output: string): Record<string, [number, number][]> {
  const out: Record<string, [number, number][]> = {};
  const meanPrefix = `samples/${source}/mean/`;
  for (const [tag, s] of series.entries()) {
    let name: string;
    if (tag === sampleCharsTag(source, output)) name = `${output} chars`;
    else if (tag.startsWith(meanPrefix)) name = tag.slice(meanPrefix.length);
    else continue;
    out[name] = Array.from({ length: s.length }, (_, i) => [s.step(i), s.value(i)]);
  }
  return out;
}

const sorted = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));

describe('per-step means against Python json', () => {
  test('completions JSONL: every number column and the completion length, exactly (a 10,000-sample step, 1.2 M chars)', async () => {
    const fx = writeCompletionsJsonl(join(tmp, 'grpo'));
    const r = await readSource(fx.file, 'completions');
    const got = derived(r.series, 'completions.jsonl', 'completion');
    const want = oracle('jsonl', fx.file, 'completion');
    expect(Object.keys(want).sort()).toEqual([
      'advantage',
      'completion chars',
      'reward',
      'rewards/correctness_reward',
      'rewards/format_reward',
    ]);
    expect(sorted(got)).toEqual(sorted(want));
    expect(want.reward!.map(([step]) => step)).toEqual([10, 20, 30]);
    // The samples themselves are kept as before: only derived series were added.
    expect(r.samples!.count).toBe(8 + 8 + 10_000);
    expect(r.series.tags().every((t) => isSampleMeanTag(t))).toBe(true);
  });

  test('W&B tables: each table a whole step, nulls skipped, emoji counted as Python does', async () => {
    const fx = writeWandbTables(join(tmp, 'wandb'), [5, 10, 15]);
    const r = await readSource(join(fx.dir, 'run-smp00001.wandb'), 'wandb');
    const got = derived(r.series, 'completions', 'completion');
    const want = oracle('tables', '', 'completion', [...fx.tables]);
    expect(Object.keys(want).sort()).toEqual(['advantage', 'completion chars', 'correctness_reward']);
    expect(sorted(got)).toEqual(sorted(want));
    // History scalars are untouched beside them.
    expect(r.series.get('train/loss').length).toBe(3);
  });

  test('inspect shows the derived tags as the run’s scalars', async () => {
    const root = join(tmp, 'inspect');
    writeCompletionsJsonl(join(root, 'grpo'), 20);
    const report = await inspectPath(root);
    const grpo = report.runs.find((x) => x.run === 'grpo')!;
    expect(Object.keys(grpo.scalars).sort()).toEqual([
      sampleMeanTag('completions.jsonl', 'advantage'),
      sampleMeanTag('completions.jsonl', 'reward'),
      sampleMeanTag('completions.jsonl', 'rewards/correctness_reward'),
      sampleMeanTag('completions.jsonl', 'rewards/format_reward'),
      sampleCharsTag('completions.jsonl', 'completion'),
    ]);
    expect(grpo.scalars[sampleMeanTag('completions.jsonl', 'reward')]).toMatchObject({ count: 3 });
  });
});

describe('when a step is charted', () => {
  const line = (o: Record<string, unknown>): string => JSON.stringify(o) + '\n';

  test('a live file: a step charts when the next starts, the quiet tail after COMPLETIONS_SETTLED_MS, late rows not again', async () => {
    const dir = join(tmp, 'live');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'completions.jsonl');
    writeFileSync(file, line({ step: 1, prompt: 'p', completion: 'ab', reward: 1 }));
    let now = Date.now();
    const reader = new CompletionsReader(file, { now: () => now });
    const tag = sampleMeanTag('completions.jsonl', 'reward');
    const points = (): [number, number][] => {
      const s = reader.series.has(tag) ? reader.series.get(tag) : null;
      return s ? Array.from({ length: s.length }, (_, i) => [s.step(i), s.value(i)]) : [];
    };
    await reader.readMore();
    expect(points()).toEqual([]); // step 1 may still grow
    appendFileSync(file, line({ step: 1, prompt: 'p', completion: 'abcd', reward: 2 }));
    appendFileSync(file, line({ step: 2, prompt: 'p', completion: 'x', reward: 5 }));
    await reader.readMore();
    expect(points()).toEqual([[1, 1.5]]);
    // Quiet, but not long enough yet.
    const mtime = Date.now() / 1000;
    utimesSync(file, mtime, mtime);
    now = mtime * 1000 + COMPLETIONS_SETTLED_MS - 100;
    await reader.readMore();
    expect(points()).toEqual([[1, 1.5]]);
    now = mtime * 1000 + COMPLETIONS_SETTLED_MS;
    await reader.readMore();
    expect(points()).toEqual([
      [1, 1.5],
      [2, 5],
    ]);
    expect(reader.series.get(sampleCharsTag('completions.jsonl', 'completion')).values()).toEqual(
      Float64Array.of(3, 1),
    );
    // A late row of the charted step stays a sample, not a second point; the next step charts on the final read.
    appendFileSync(file, line({ step: 2, prompt: 'p', completion: 'y', reward: 7 }));
    appendFileSync(file, line({ step: 3, prompt: 'p', completion: 'z', reward: 9 }));
    await reader.readMore({ final: true });
    expect(points()).toEqual([
      [1, 1.5],
      [2, 5],
      [3, 9],
    ]);
    expect(reader.samples.table('completions.jsonl', 2)!.rows.length).toBe(2);
  });

  test('the workspace pushes a quiet file’s last step, which came without a new record', async () => {
    const dir = join(tmp, 'ws', 'grpo');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'completions.jsonl');
    writeFileSync(
      file,
      line({ step: 1, prompt: 'p', completion: 'a', reward: 1 }) +
        line({ step: 2, prompt: 'p', completion: 'b', reward: 3 }),
    );
    const ws = createWorkspace({ sweepMs: 50 });
    const pushed: [number, number][] = [];
    const tag = sampleMeanTag('completions.jsonl', 'reward');
    ws.on('series.appended', (d) => {
      if (d.tag === tag) for (let i = 0; i < d.steps.length; i++) pushed.push([d.steps[i]!, d.values[i]!]);
    });
    try {
      await ws.open(join(tmp, 'ws'));
      await waitFor(() => pushed.length >= 1, 'step 1 charted');
      expect(pushed).toEqual([[1, 1]]);
      // The writer went quiet long ago: the next sweep's read finds no bytes and charts step 2.
      const past = Date.now() / 1000 - 60;
      utimesSync(file, past, past);
      await waitFor(() => pushed.length >= 2, 'the quiet tail step charted');
      expect(pushed).toEqual([
        [1, 1],
        [2, 3],
      ]);
    } finally {
      await ws.close();
    }
  });

  test('columns: 32 charted at most (the first seen); axes never; wall times from the rows', () => {
    const series = new SeriesSet('f64');
    const store = new SampleStore(undefined, () => series);
    const wide = (step: number): [string, unknown][] => [
      ['step', step],
      ['timestamp', 1_767_225_600 + step],
      ...Array.from({ length: 40 }, (_, i): [string, unknown] => [`c${i}`, step + i]),
    ];
    store.add('s', 'jsonl', 1, wide(1));
    store.add('s', 'jsonl', 2, [...wide(2), ['late', 4]]);
    store.closeSteps();
    const names = series.tags().map((t) => t.slice('samples/s/mean/'.length));
    expect(names.length).toBe(SAMPLE_MEAN_COLUMNS);
    expect(new Set(names)).toEqual(new Set(Array.from({ length: 32 }, (_, i) => `c${i}`)));
    const c0 = series.get(sampleMeanTag('s', 'c0'));
    expect([...c0.steps()]).toEqual([1, 2]);
    expect([...c0.values()]).toEqual([1, 2]);
    expect([...c0.wallTimes()]).toEqual([1_767_225_601, 1_767_225_602]);
    // No output column here: no length series.
    expect(series.tags().some((t) => t.includes('/mean_chars/'))).toBe(false);
  });

  test('a step where a column holds text or booleans besides numbers is not charted; nulls are skipped', () => {
    const series = new SeriesSet('f64');
    const store = new SampleStore(undefined, () => series);
    store.add('t', 'jsonl', 1, [
      ['score', 'n/a'],
      ['flag', true],
      ['ok', 3],
    ]);
    store.add('t', 'jsonl', 1, [
      ['score', 2],
      ['flag', 1],
      ['ok', null],
    ]);
    store.add('t', 'jsonl', 2, [
      ['score', 4],
      ['flag', 1],
      ['ok', 5],
    ]);
    store.add('t', 'jsonl', 2, [
      ['score', 6],
      ['flag', false],
      ['ok', 1],
    ]);
    store.add('t', 'jsonl', 3, [
      ['score', 1],
      ['flag', 0],
    ]);
    store.closeSteps();
    const points = (c: string): number[][] => {
      const x = series.get(sampleMeanTag('t', c));
      return Array.from({ length: x.length }, (_, i) => [x.step(i), x.value(i)]);
    };
    expect(points('score')).toEqual([
      [2, 5],
      [3, 1],
    ]);
    expect(points('flag')).toEqual([[3, 0]]);
    expect(points('ok')).toEqual([
      [1, 3],
      [2, 3],
    ]);
  });

  test('code points as Python counts them: a surrogate pair is one, a lone surrogate one', () => {
    expect(codePoints('naïve 🚀')).toBe(7);
    expect(codePoints('\ud83d')).toBe(1);
    expect(codePoints('a\udc00b\ud83d\ude80')).toBe(4);
  });

  test('a store without a series set charts nothing', () => {
    const store = new SampleStore();
    store.add('s', 'jsonl', 1, [['reward', 1]]);
    store.closeSteps();
    expect(store.stepsOpen).toBe(false);
  });
});

describe('derived tags and the run’s sessions', () => {
  test('ranks interleaving steps in a completions log restart no run; a restart of the logged metrics still does', async () => {
    const root = join(tmp, 'interleaved');
    const dir = join(root, 'grpo');
    mkdirSync(dir, { recursive: true });
    // Two ranks append to one completions log, rank 1 a step behind: steps 0, 1, 0, 2, 1, 3, 2…
    const samples: string[] = [];
    for (let step = 0; step < 12; step++)
      for (const s of step === 0 ? [0] : [step, step - 1])
        samples.push(JSON.stringify({ step: s, prompt: 'p', completion: 'c'.repeat(s + 1), reward: s }));
    writeFileSync(join(dir, 'completions.jsonl'), samples.join('\n') + '\n');
    const metrics = (steps: number[]): string =>
      steps.map((step) => JSON.stringify({ step, loss: 1 })).join('\n') + '\n';
    writeFileSync(join(dir, 'metrics.jsonl'), metrics([...Array(12).keys()]));
    const tag = sampleMeanTag('completions.jsonl', 'reward');

    const ws = createWorkspace({ sweepMs: 50 });
    try {
      await ws.open(root);
      await waitFor(() => ws.listRuns()[0]?.loaded === true, 'loaded');
      await waitFor(() => (ws.getWindow('grpo', tag, { pixels: 1000 })?.length ?? 0) > 3, 'derived points');
      // The derived chart shows the order the rows came in (its own restarts)…
      expect(ws.getWindow('grpo', tag, { pixels: 1000 })!.restarts.length).toBeGreaterThan(0);
      // …but the run did not restart.
      const run = ws.listRuns()[0]!;
      expect(run.restarts).toBe(0);
      expect(run.sessions.length).toBe(1);
    } finally {
      await ws.close();
    }
    expect((await inspectPath(root)).runs[0]!.sessions.length).toBe(1);

    // The trainer itself restarting (its metrics' steps going back) is still the run's restart.
    writeFileSync(join(dir, 'metrics.jsonl'), metrics([...[...Array(12).keys()], 5, 6, 7, 8]));
    expect((await inspectPath(root)).runs[0]!.sessions.length).toBe(2);
  });
});

describe('derived tags feed no health rule', () => {
  /** Feeds every series of the read results into a fresh engine, tag by tag, as real-files.test.ts does. */
  function evaluate(results: SourceReadResult[]): AlertTransition[] {
    const e = new HealthEngine({ clock: () => 0 });
    e.setThresholds('run', resolveThresholds(null, null).values);
    const out: AlertTransition[] = [];
    for (const r of results)
      for (const [tag, s] of r.series.entries())
        out.push(...e.feedBatch('run', tag, s.steps(), s.wallTimes(), s.values()));
    return out;
  }
  const fired = (ts: AlertTransition[]): string[] =>
    [
      ...new Set(ts.filter((t) => t.kind !== 'cleared').map((t) => `${t.alert.rule} ${t.alert.tag ?? ''}`)),
    ].sort();

  test('a run logging a scalar reward and completions raises the scalar’s alerts only; completions alone raise none', async () => {
    const dir = join(tmp, 'both');
    mkdirSync(dir, { recursive: true });
    // A reward flat for 300 steps (a plateau) and a KL far past any target, as scalars and as completion columns.
    const metrics: string[] = [];
    const samples: string[] = [];
    for (let step = 0; step < 300; step++) {
      metrics.push(JSON.stringify({ step, reward: 0.5, kl: 5, loss: 1 / (step + 1) }));
      for (let i = 0; i < 4; i++)
        samples.push(
          JSON.stringify({ step, prompt: 'p', completion: 'c'.repeat(i + 1), reward: 0.5, kl: 5, loss: 1 }),
        );
    }
    writeFileSync(join(dir, 'metrics.jsonl'), metrics.join('\n') + '\n');
    writeFileSync(join(dir, 'completions.jsonl'), samples.join('\n') + '\n');
    const scalars = await readSource(join(dir, 'metrics.jsonl'), 'jsonl');
    const completions = await readSource(join(dir, 'completions.jsonl'), 'completions');
    const tags = completions.series.tags();
    expect(tags).toEqual([
      sampleMeanTag('completions.jsonl', 'kl'),
      sampleMeanTag('completions.jsonl', 'loss'),
      sampleMeanTag('completions.jsonl', 'reward'),
      sampleCharsTag('completions.jsonl', 'completion'),
    ]);
    expect(completions.series.get(tags[2]!).length).toBe(300);
    // Named like the metrics they average, they still have no role (else they would be judged as reward, KL…); they
    // chart in their column's group.
    for (const t of tags) expect(classifyTag(t)).toBeNull();
    expect(tags.map(groupOf)).toEqual(['Policy', 'Loss', 'Reward', 'Performance']);
    expect(groupOf(sampleMeanTag('completions.jsonl', 'advantage'))).toBe('Other');
    expect(groupOf(sampleMeanTag('eval/completions', 'rewards/format_reward'))).toBe('Reward');
    const alone = fired(evaluate([scalars]));
    expect(alone.length).toBeGreaterThan(0);
    expect(fired(evaluate([scalars, completions]))).toEqual(alone);
    expect(fired(evaluate([completions, scalars]))).toEqual(alone);
    expect(fired(evaluate([completions]))).toEqual([]);
  });
});
