// Run scope on real corpus runs: SB3/rl4avs and Dreamer are classic RL, TRL GRPO trainer states are LLM RLHF.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSource } from '../../../src/core/sources/registry';
import { readEventFile } from '../../../src/core/tfevents';
import { isLlmTag, roleText, runScope } from '../../../src/shared/catalog';

const FIX = join(__dirname, '../../fixtures');

describe('runScope on real runs', () => {
  it('SB3 PPO/A2C/DQN event files (highway-env) and Dreamer event files are classic', () => {
    for (const sub of ['tfevents/0pk0__rl4avs', 'tfevents/epistoteles__dreamer-goal-conditioned']) {
      const dir = join(FIX, sub);
      for (const f of readdirSync(dir)) {
        const tags = readEventFile(join(dir, f)).series.tags();
        expect(runScope(tags, null), `${sub}/${f}`).toBe('classic');
      }
    }
  });

  it('TRL GRPO trainer states (Chaos-Economy, Tau-Bench) are LLM RLHF', async () => {
    for (const p of [
      'Rusheel86__Chaos-Economy/training_logs.json',
      'Ray-Cheng-11__Tau-Bench-Model-Training/trainer_state.json',
    ]) {
      const r = await readSource(join(FIX, 'progress', p), 'trainer_state');
      expect(runScope(r.series.tags(), r.config ?? null), p).toBe('llm');
    }
  });

  it('the LLM trainers’ own tag names and config keys', () => {
    for (const t of ['objective/kl', 'actor/ppo_kl', 'response_length/mean', 'completions/clipped_ratio'])
      expect(isLlmTag(t), t).toBe(true);
    for (const t of ['train/approx_kl', 'rollout/ep_rew_mean', 'train/entropy_loss', 'loss'])
      expect(isLlmTag(t), t).toBe(false);
    expect(runScope(['loss'], { model: { model_name_or_path: 'gpt2' } })).toBe('llm');
    expect(runScope(['loss'], { algo: 'PPO', n_steps: 2048 })).toBe('classic');
  });
});

describe('roleText', () => {
  it('classic runs get classic wording; LLM runs the LLM advice', () => {
    expect(roleText('entropy', 'classic').advice).not.toMatch(/temperature/);
    expect(roleText('entropy', 'classic').description).not.toMatch(/token/);
    expect(roleText('entropy', 'llm').advice).toMatch(/temperature pulses/);
    expect(roleText('clip_fraction', 'classic').description).not.toMatch(/token/);
    expect(roleText('reward', 'classic')).toEqual(roleText('reward', 'llm'));
  });
});
