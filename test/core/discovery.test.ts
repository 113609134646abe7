// Run discovery on the fixture tree and on temp trees with symlink loops and unreadable folders.

import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  readdirSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverRuns, foldersToWatch, rootRunName } from '../../src/core/discovery';
import { sniffJson } from '../../src/core/sources/sniff';
import { fixture } from './readers/helpers';

const tmp = mkdtempSync(join(tmpdir(), 'rlwatch-disc-'));
afterAll(() => {
  try {
    chmodSync(join(tmp, 'locked', 'secret'), 0o755);
  } catch {
    /* not created */
  }
  rmSync(tmp, { recursive: true, force: true });
});

function write(rel: string, text: string): void {
  const p = join(tmp, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
}

describe('discoverRuns', () => {
  it('finds every progress and W&B run of the fixtures with the right formats', async () => {
    const parts = await Promise.all(
      ['progress', 'wandb'].map(async (top) => ({ top, d: await discoverRuns(fixture(top)) })),
    );
    for (const { d } of parts) expect(d.errors).toEqual([]);
    const d = { runs: parts.flatMap(({ top, d }) => d.runs.map((r) => ({ ...r, run: `${top}/${r.run}` }))) };
    const byRun = Object.fromEntries(
      d.runs.map((r) => [r.run, r.sources.map((s) => `${s.name}:${s.format}`)]),
    );
    expect(byRun['progress/Rusheel86__Chaos-Economy']).toEqual(['training_logs.json:trainer_state']);
    expect(byRun['progress/CS15B001__HER_Improvements']).toEqual(['progress.04_29_20_21_32.csv:csv']);
    expect(byRun['progress/BoogaQ__PPO-exploration']).toEqual(['1.monitor.csv:csv']);
    expect(byRun['progress/epistoteles__dreamer-goal-conditioned']).toEqual([
      'metrics.dmc_walker_walk-1.jsonl:jsonl',
      'metrics.fetch-reach-1.jsonl:jsonl',
      'metrics.jsonl:jsonl',
    ]);
    expect(byRun['wandb/wandb__wandb/leet-wire']).toEqual(['bad-crc.wandb:wandb']);
    const wandbRuns = d.runs.filter((r) => r.sources.some((s) => s.format === 'wandb'));
    expect(wandbRuns).toHaveLength(10);
    // files/ holds config.yaml and wandb-summary.json: not runs of their own.
    expect(d.runs.some((r) => r.run.endsWith('/files'))).toBe(false);
    const names = d.runs.map((r) => r.run);
    expect(names).toEqual([...names].sort());
    expect(d.runs).toHaveLength(18);
  });

  it('names runs relative to the opened folder, its own run by its name, sniffs generic names, never writes', async () => {
    write('a/events.out.tfevents.1.host', '');
    write('a/b/metrics/kl.csv', 'x,y\n1,2\n');
    write('c/run.jsonl', '{"step": 1, "loss": 0.5}\n');
    write('c/data.jsonl', '{"text": "hello", "id": 1}\n');
    write('c/log.json', '[{"epoch": 1, "r": 2}]');
    write('c/config.json', '{"lr": 1}');
    write('d/state.json', '{"completed_chunks": 2, "requests_done": 5}');
    write('e/gpu.csv', 'name,index\nH100,0\n');
    write('training_progress.json', '{}');
    const before = statSync(tmp).mtimeMs;
    const d = await discoverRuns(tmp);
    expect(d.errors).toEqual([]);
    expect(d.runs.map((r) => [r.run, r.sources.map((s) => `${s.name}:${s.format}`).join(' ')])).toEqual([
      ['a', 'events.out.tfevents.1.host:tfevents'],
      ['a/b/metrics', 'kl.csv:csv'],
      ['c', 'log.json:json run.jsonl:jsonl'],
      ['d', 'state.json:training_progress'],
      // The opened folder's own run: its folder's name (never "." in alerts and exports), sorted with the rest.
      [basename(tmp), 'training_progress.json:training_progress'],
    ]);
    expect(statSync(tmp).mtimeMs).toBe(before);
    expect(readdirSync(join(tmp, 'c')).sort()).toEqual([
      'config.json',
      'data.jsonl',
      'log.json',
      'run.jsonl',
    ]);
  });

  it('reports symlink loops and unreadable folders per folder, and does not walk a latest-run link twice', async () => {
    write('loop/run-1/metrics.jsonl', '{"step": 1, "a": 1}\n');
    symlinkSync(join(tmp, 'loop'), join(tmp, 'loop', 'run-1', 'back'));
    symlinkSync(join(tmp, 'loop', 'run-1'), join(tmp, 'loop', 'latest-run'));
    symlinkSync(join(tmp, 'loop', 'self-a'), join(tmp, 'loop', 'self-b'));
    symlinkSync(join(tmp, 'loop', 'self-b'), join(tmp, 'loop', 'self-a'));
    write('locked/secret/progress.csv', 'step,a\n1,2\n');
    chmodSync(join(tmp, 'locked', 'secret'), 0o000);
    const d = await discoverRuns(tmp);
    const runs = d.runs.map((r) => r.run);
    expect(runs).toContain('loop/run-1');
    expect(runs).not.toContain('loop/latest-run');
    const errs = d.errors.map((e) => `${e.kind}:${e.path}`).sort();
    expect(errs).toContain('symlink-loop:loop/run-1/back');
    expect(errs.filter((e) => e.startsWith('symlink-loop:loop/self-'))).toHaveLength(2);
    if (process.getuid?.() !== 0) expect(errs).toContain('io:locked/secret');
    // The folders to watch: each real folder once, no loop followed, no second name.
    const walked = d.dirs.map((p) => relative(tmp, p)).filter((p) => p.startsWith('loop'));
    expect(walked.sort()).toEqual(['loop', join('loop', 'run-1')]);
    const watch = foldersToWatch(tmp, d);
    expect(watch.runTree[0]).toBe(tmp);
    expect(watch.runTree).toContain(join(tmp, 'loop', 'run-1'));
    expect(watch.runTree).toContain(join(tmp, 'loop'));
    expect([...watch.runTree, ...watch.others].filter((p) => p.includes('latest-run'))).toEqual([]);
  });

  it('reads a linked metrics file only where it lies in the opened folder: one linked out is an error, never a source', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'rlwatch-disc-out-'));
    try {
      writeFileSync(join(outside, 'secret.csv'), 'root:x:0:0,secret\n1,2\n');
      write('links/run-out/keep.jsonl', '{"step": 1, "a": 1}\n');
      symlinkSync(join(outside, 'secret.csv'), join(tmp, 'links', 'run-out', 'metrics.csv'));
      write('links/run-in/real/progress.csv', 'step,a\n1,2\n');
      symlinkSync(
        join(tmp, 'links', 'run-in', 'real', 'progress.csv'),
        join(tmp, 'links', 'run-in', 'metrics.csv'),
      );
      const d = await discoverRuns(join(tmp, 'links'));
      const files = d.runs.flatMap((r) => r.sources.map((s) => relative(join(tmp, 'links'), s.path)));
      expect(files).not.toContain(join('run-out', 'metrics.csv'));
      expect(files).toContain(join('run-out', 'keep.jsonl'));
      expect(files).toContain(join('run-in', 'metrics.csv'));
      expect(d.errors.map((e) => `${e.kind}:${e.path}`)).toContain(`io:${join('run-out', 'metrics.csv')}`);
      expect(JSON.stringify(d)).not.toContain('root:x');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('reports a missing folder and classifies a single opened file as a run named by its folder', async () => {
    expect((await discoverRuns(join(tmp, 'missing'))).errors.map((e) => e.kind)).toEqual(['io']);
    const one = await discoverRuns(fixture('progress/Whomstt__Atari-Breakout-DQN/training_metrics.json'));
    expect(one.runs.map((r) => [r.run, r.sources[0]?.format])).toEqual([
      ['Whomstt__Atari-Breakout-DQN', 'json'],
    ]);
  });

  it('names the opened folder\'s run "." only where a run below has its name, so names stay unique', async () => {
    write('ppo/metrics.jsonl', '{"step": 1, "a": 1}\n');
    write('ppo/ppo/metrics.jsonl', '{"step": 1, "a": 1}\n');
    const d = await discoverRuns(join(tmp, 'ppo'));
    expect(d.runs.map((r) => r.run)).toEqual(['.', 'ppo']);
    expect(rootRunName('/', [])).toBe('.');
    expect(rootRunName('/x/run_7/', [])).toBe('run_7');
  });

  it('on a local disk (synchronous listings and head reads) finds the same runs, sources, formats and errors', async () => {
    // A long comment before a CSV's header: what decides lies past the first 4 KiB read.
    write('late/train_log.csv', `# ${'x'.repeat(9000)}\nstep,loss\n1,0.5\n`);
    write('empty/metrics.csv', '');
    write('table/data.csv', 'name,colour\napple,red\n');
    for (const root of [fixture(''), tmp]) {
      const threadpool = await discoverRuns(root);
      const local = await discoverRuns(root, { localDisk: true });
      expect(local).toEqual(threadpool);
      expect(local.runs.length).toBeGreaterThan(3);
    }
    const late = await discoverRuns(join(tmp, 'late'), { localDisk: true });
    expect(late.runs.map((r) => [r.run, r.sources.map((x) => x.format)])).toEqual([['late', ['csv']]]);
  });

  it('sniffs JSON documents by shape', () => {
    expect(sniffJson('  [ {"a": 1}]')).toBe('json');
    expect(sniffJson('[1, 2]')).toBeNull();
    expect(sniffJson('{"global_step": 3, "log_history": []}')).toBe('trainer_state');
    expect(sniffJson('{"global_step": 3, "max_steps": 9}')).toBe('training_progress');
    expect(sniffJson('{"_step": 3, "loss": 1}')).toBeNull();
  });
});
