// Real files from test/fixtures: the catalog maps their known tags, and what fires on each is pinned (and why).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HealthEngine, resolveThresholds, type AlertTransition } from '../../../src/core/health';
import { readSource } from '../../../src/core/sources/registry';
import type { SourceReadResult } from '../../../src/core/readers/types';
import { readEventFile } from '../../../src/core/tfevents';
import { classifyTag } from '../../../src/shared/catalog';

const FIX = join(__dirname, '../../fixtures');

/** Feeds a read result through a fresh engine the way the app does (tag by tag, in order). */
function evaluate(results: SourceReadResult[]): AlertTransition[] {
  const clock = { now: 0 };
  const e = new HealthEngine({ clock: () => clock.now });
  e.setThresholds('run', resolveThresholds(null, results.find((r) => r.config)?.config ?? null).values);
  const out: AlertTransition[] = [];
  for (const r of results)
    for (const [tag, s] of r.series.entries())
      out.push(...e.feedBatch('run', tag, s.steps(), s.wallTimes(), s.values()));
  return out;
}
const fired = (ts: AlertTransition[]) =>
  [
    ...new Set(
      ts.filter((t) => t.kind !== 'cleared').map((t) => `${t.alert.rule} ${t.alert.tag ?? ''}`.trim()),
    ),
  ].sort();
const roles = (r: SourceReadResult, tags: string[]) =>
  Object.fromEntries(tags.map((t) => [t, classifyTag(t)?.role ?? null]));

describe('SB3 PPO event files (0pk0__rl4avs)', () => {
  const dir = join(FIX, 'tfevents/0pk0__rl4avs');
  const files = readdirSync(dir).sort();
  const read = (name: string) => readEventFile(join(dir, files.find((f) => f.includes(name))!));

  it('maps the SB3 tags to roles', () => {
    const r = read('1754323433');
    expect(roles(r, r.series.tags())).toEqual({
      'rollout/ep_len_mean': 'episode_length',
      'rollout/ep_rew_mean': 'reward',
      'time/fps': 'fps',
      'train/approx_kl': 'kl',
      'train/clip_fraction': 'clip_fraction',
      'train/clip_range': 'clip_range',
      'train/entropy_loss': 'entropy',
      'train/explained_variance': 'explained_variance',
      'train/learning_rate': 'learning_rate',
      'train/loss': 'loss',
      'train/policy_gradient_loss': 'policy_loss',
      'train/value_loss': 'value_loss',
    });
  });

  it('pins what fires on each file', () => {
    const got = Object.fromEntries(files.map((f) => [f, fired(evaluate([readEventFile(join(dir, f))]))]));
    expect(got).toMatchSnapshot();
  });
});

describe('TRL GRPO trainer states', () => {
  it('Chaos-Economy training_logs.json: TRL tags map and what fires is pinned', async () => {
    const r = await readSource(
      join(FIX, 'progress/Rusheel86__Chaos-Economy/training_logs.json'),
      'trainer_state',
    );
    expect(
      roles(r, [
        'kl',
        'reward',
        'reward_std',
        'grad_norm',
        'loss',
        'clip_ratio/region_mean',
        'completions/clipped_ratio',
        'rewards/pnl_reward_fn/mean',
      ]),
    ).toEqual({
      kl: 'kl',
      reward: 'reward',
      reward_std: 'reward_std',
      grad_norm: 'grad_norm',
      loss: 'loss',
      'clip_ratio/region_mean': 'clip_fraction',
      'completions/clipped_ratio': 'response_truncation',
      'rewards/pnl_reward_fn/mean': 'reward',
    });
    expect(fired(evaluate([r]))).toMatchSnapshot();
  });
  it('Tau-Bench trainer_state.json (one log entry): maps, nothing fires', async () => {
    const r = await readSource(
      join(FIX, 'progress/Ray-Cheng-11__Tau-Bench-Model-Training/trainer_state.json'),
      'trainer_state',
    );
    expect(classifyTag('completions/clipped_ratio')?.role).toBe('response_truncation');
    expect(r.series.tags().filter((t) => classifyTag(t) === null)).toMatchSnapshot();
    expect(fired(evaluate([r]))).toEqual([]);
  });
});

describe('W&B runs', () => {
  const root = join(FIX, 'wandb');
  const runs: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith('.wandb') && !e.name.includes('bad-crc')) runs.push(join(d, e.name));
    }
  };
  walk(root);
  runs.sort();

  it('maps system stats and losses, pins what fires', async () => {
    const got: Record<string, string[]> = {};
    for (const p of runs) {
      const r = await readSource(p, 'wandb');
      got[p.slice(root.length + 1)] = fired(evaluate([r]));
      for (const t of r.series.tags()) {
        if (/^system\/gpu\.\d+\.gpu$/.test(t)) expect(classifyTag(t)?.role).toBe('gpu_util');
        if (t === 'system/memory') expect(classifyTag(t)?.role).toBe('memory_pct');
        if (t === 'loss' || t === 'train/loss') expect(classifyTag(t)?.role).toBe('loss');
      }
    }
    expect(got).toMatchSnapshot();
  });
});
