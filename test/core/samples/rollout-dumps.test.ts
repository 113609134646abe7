// Per-step sample dumps (verl's rollouts/{step}.jsonl, custom samples/step_N.jsonl): one sample source of the parent run.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { sampleSources } from '../../../src/core/app/run-samples';
import { discoverRuns, foldersToWatch } from '../../../src/core/discovery';
import { inspectPath } from '../../../src/core/inspect';
import { dumpStep } from '../../../src/core/samples/completions';
import { readSource } from '../../../src/core/sources/registry';
import type { SampleSource } from '../../../src/shared/samples';

const tmp = mkdtempSync(join(tmpdir(), 'rlwatch-dumps-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function write(rel: string, rows: readonly object[]): string {
  const p = join(tmp, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return p;
}

/** A step of verl's `_dump_generations`: input, output, gts, score, step and the reward's extra infos. */
function verlStep(step: number, n: number): object[] {
  return Array.from({ length: n }, (_, i) => ({
    input: `question ${i}`,
    output: `answer ${i} at ${step}`,
    gts: String(i),
    score: step + i,
    step,
    acc: i % 2,
  }));
}

describe('per-step sample dumps', () => {
  test('a dump file name says its step; other names say none', () => {
    expect(dumpStep('12.jsonl')).toBe(12);
    expect(dumpStep('step_3.jsonl')).toBe(3);
    expect(dumpStep('global_step_40.jsonl')).toBe(40);
    expect(dumpStep('step-7.jsonl')).toBe(7);
    expect(dumpStep('completions.jsonl')).toBe(null);
    expect(dumpStep('rollouts-3.jsonl')).toBe(null);
    expect(dumpStep('12.csv')).toBe(null);
  });

  test("verl's rollouts/{step}.jsonl is one sample source of the run above it, not a run of its own", async () => {
    const root = join(tmp, 'tree');
    for (const step of [1, 2, 10]) write(`tree/verl_run/rollouts/${step}.jsonl`, verlStep(step, 3));
    write('tree/verl_run/validation/5.jsonl', verlStep(5, 2));
    write('tree/custom/metrics.jsonl', [{ step: 1, loss: 0.5 }]);
    write('tree/custom/samples/step_3.jsonl', [{ prompt: 'p', response: 'r', reward: 1 }]);
    // A folder of step-named metric files is not a dump: it stays a run.
    write('tree/other/logs/1.jsonl', [{ step: 1, loss: 0.5 }]);
    const d = await discoverRuns(root);
    const byRun = Object.fromEntries(d.runs.map((r) => [r.run, r.sources.map((s) => s.name)]));
    expect(byRun).toEqual({
      custom: ['metrics.jsonl', 'samples/step_3.jsonl'],
      'other/logs': ['1.jsonl'],
      // Steps in order (10 after 2), so the per-step means read as one session.
      verl_run: ['rollouts/1.jsonl', 'rollouts/2.jsonl', 'rollouts/10.jsonl', 'validation/5.jsonl'],
    });
    // The dump folders are watched with the runs: the next step's file appears there.
    const watched = foldersToWatch(root, d).runTree;
    expect(watched).toContain(join(root, 'verl_run', 'rollouts'));
    expect(watched).toContain(join(root, 'custom', 'samples'));
  });

  test('the files read as one source named by the folder, each at the step its name says', async () => {
    const run = join(tmp, 'read', 'verl_run');
    for (const step of [1, 2, 10]) write(`read/verl_run/rollouts/${step}.jsonl`, verlStep(step, 3));
    // A row whose own step disagrees with its file: the file's name decides (one file is one step).
    write('read/verl_run/rollouts/11.jsonl', [{ input: 'q', output: 'a', score: 1, step: 99 }]);
    const d = await discoverRuns(run);
    expect(d.runs.map((r) => r.run)).toEqual(['verl_run']);
    const reads = await Promise.all(d.runs[0]!.sources.map((s) => readSource(s.path, s.format)));
    const listed = sampleSources(reads.map((r) => r.samples).filter((s): s is SampleSource => !!s));
    expect(listed.map((s) => [s.source, s.steps.map((x) => `${x.step}:${x.rows}`)])).toEqual([
      ['rollouts', ['1:3', '2:3', '10:3', '11:1']],
    ]);
    // inspect (and so export, the window) see one run with one chart of each mean, one point per step.
    const report = await inspectPath(join(tmp, 'read'));
    expect(report.runs.map((r) => r.run)).toEqual(['verl_run']);
    const r = report.runs[0]!;
    expect(r.sources.flatMap((s) => s.samples.map((x) => x.source))).toEqual(Array(4).fill('rollouts'));
    const tags = Object.keys(r.scalars).filter((t) => t.startsWith('samples/'));
    expect(tags.sort()).toEqual([
      'samples/rollouts/mean/acc',
      'samples/rollouts/mean/score',
      'samples/rollouts/mean_chars/output',
    ]);
    expect(r.scalars['samples/rollouts/mean/score']).toMatchObject({
      count: 4,
      firstStep: 1,
      lastStep: 11,
      last: 1,
      max: 11,
    });
  });
});
