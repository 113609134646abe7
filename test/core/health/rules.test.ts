// Each rule on synthetic streams: fires on the fault, stays quiet on noise, single spikes and restarts.
import { describe, expect, it } from 'vitest';
import type { AlertTransition } from '../../../src/core/health';
import { DEFAULT_THRESHOLDS } from '../../../src/core/health';
import { harness, noise, raised, rules, run } from './helpers';

const ramp = (n: number, from: number, to: number) =>
  Array.from({ length: n }, (_, i) => from + ((to - from) * i) / (n - 1));

/** `run` on a run whose config set target_kl 0.02. */
const runWithTarget = (tag: string, values: number[]): AlertTransition[] =>
  run(tag, values, undefined, { targetKl: 0.02 });

describe('kl-above-target with a target_kl set', () => {
  it('fires after 3 points above 0.02 and escalates past 2×', () => {
    const ts = runWithTarget('approx_kl', [
      ...noise(1, 50, 0.008, 0.002),
      ...Array(10).fill(0.03),
      ...Array(5).fill(0.06),
    ]);
    const r = raised(ts, 'kl-above-target');
    expect(r).toHaveLength(1);
    expect(r[0]!.alert).toMatchObject({ step: 52, severity: 'warning', tag: 'approx_kl' });
    expect(ts.some((t) => t.kind === 'escalated' && t.alert.severity === 'critical')).toBe(true);
  });
  it('ignores healthy noise and a single modest excess', () => {
    const xs = noise(2, 300, 0.008, 0.002);
    xs[100] = 0.03;
    expect(runWithTarget('approx_kl', xs)).toEqual([]);
  });
  it('raises on the update itself, critical, when KL is far past the target (a 65× blow-up for two updates)', () => {
    // What a real PyTorch trainer logged: approx_kl 1.29 for two updates, then the collapsed policy drove it to 0.
    const xs = [...noise(2, 40, 0.008, 0.002), 1.29, 1.1, 0, 0, 0, 0, 0, 0];
    for (const ts of [runWithTarget('train/approx_kl', xs), run('train/approx_kl', xs)]) {
      const r = raised(ts, 'kl-above-target');
      expect(r).toHaveLength(1);
      expect(r[0]!.alert).toMatchObject({ step: 40, severity: 'critical', tag: 'train/approx_kl' });
      expect(r[0]!.alert.value).toBe(1.29);
    }
  });
  it('does not flap on a stream oscillating around the target', () => {
    const xs = Array.from({ length: 200 }, (_, i) => 0.02 + (i % 2 ? 0.001 : -0.001));
    expect(runWithTarget('actor/ppo_kl', xs)).toEqual([]);
    const ys = Array.from({ length: 200 }, (_, i) => (Math.floor(i / 4) % 2 ? 0.022 : 0.019));
    const ts = runWithTarget('actor/ppo_kl', ys);
    expect(ts.filter((t) => t.kind === 'raised').length).toBeLessThanOrEqual(1);
    expect(ts.filter((t) => t.kind === 'cleared')).toHaveLength(0);
  });
  it('clears after 5 points below 0.8× target', () => {
    const ts = runWithTarget('kl', [...Array(5).fill(0.03), ...Array(5).fill(0.01)]);
    expect(ts.map((t) => t.kind)).toEqual(['raised', 'cleared']);
  });
});

describe('kl-above-target on a classic run without a target_kl (SB3 defaults it to None)', () => {
  it('a healthy PPO run (median 0.013, 90th percentile 0.028) gets no warning from a target it does not have', () => {
    // Log-normal, as approx_kl is: median 0.013, 90th percentile 0.013 · e^(1.28 · 0.6) = 0.028.
    const xs = noise(7, 300, 0, 1).map((z) => 0.013 * Math.exp(0.6 * z));
    const sorted = [...xs].sort((a, b) => a - b);
    expect(sorted[150]!).toBeCloseTo(0.013, 2);
    expect(sorted[270]!).toBeGreaterThan(0.024);
    expect(sorted[299]!).toBeGreaterThan(0.04);
    expect(run('train/approx_kl', xs)).toEqual([]);
  });
  it('a jump far above its own level raises, and the alert says it was judged against the run itself', () => {
    const xs = [...noise(3, 60, 0.013, 0.004), 0.4, 0.5, 0.45];
    const [a] = raised(run('train/approx_kl', xs), 'kl-above-target');
    expect(a?.alert).toMatchObject({ step: 60, severity: 'critical' });
    expect(a?.alert.message).toMatch(/no target_kl is set, so KL is judged against the run's own level/);
    expect(a?.alert.message).not.toMatch(/× target_kl/);
  });
});

describe("verl's actor/kl_loss is the KL", () => {
  it('a 20× rise in it alerts as the same rise in actor/ppo_kl does', () => {
    const llm = (): [string, number][] => [['response_length/mean', 300]];
    const base = noise(5, 40, 0.01, 0.001);
    const xs = [...base, ...Array(5).fill(0.2)];
    const viaPpoKl = raised(run('actor/ppo_kl', xs, llm), 'kl-above-target');
    const viaKlLoss = raised(run('actor/kl_loss', xs, llm), 'kl-above-target');
    expect(viaKlLoss).toHaveLength(1);
    expect(viaKlLoss[0]!.alert).toMatchObject({
      step: viaPpoKl[0]!.alert.step,
      severity: viaPpoKl[0]!.alert.severity,
      tag: 'actor/kl_loss',
    });
  });
});

describe('kl-above-target on an LLM run without a target_kl', () => {
  // A TRL GRPO run's KL grows from 0 as the policy leaves its reference (0.0001 → 0.85 over a healthy run);
  // judged against PPO's target_kl 0.02 it was CRITICAL for the whole run.
  const growth = Array.from({ length: 80 }, (_, i) => 0.0001 + 0.01 * i * (1 + 0.1 * Math.sin(i)));
  it('its steady growth is no alert; a jump to several times its recent level is', () => {
    expect(run('kl', growth, () => [['completions/mean_length', 5]])).toEqual([]);
    const blowup = [...growth.slice(0, 50), 3.1, 2.5, 2.0];
    const [a] = raised(
      run('kl', blowup, () => [['completions/mean_length', 5]]),
      'kl-above-target',
    );
    expect(a?.alert).toMatchObject({ step: 50, value: 3.1, severity: 'critical' });
    expect(a?.alert.message).toMatch(/× its recent median/);
    expect(a?.alert.statistic).toMatchObject({ kind: 'median', fromStep: 40, toStep: 49 });
  });
});

describe('one incident per quantity', () => {
  it('the same quantity under several names (train/x and history/train/x) is one alert naming both tags', () => {
    const { clock, engine } = harness();
    const ts: AlertTransition[] = [];
    for (let i = 0; i < 30; i++) {
      clock.now += 1000;
      const v = i < 20 ? 0.005 : 0.5;
      ts.push(...engine.feed('r', 'train/approx_kl', i, 1e9 + i, v));
      ts.push(...engine.feed('r', 'history/train/approx_kl', i, 1e9 + i, v));
    }
    expect(ts.filter((t) => t.kind === 'raised')).toHaveLength(1);
    expect(engine.active('r')[0]?.tags).toEqual(['train/approx_kl', 'history/train/approx_kl']);
  });
});

describe('entropy-collapse', () => {
  it('fires below entropy_min', () => {
    expect(
      raised(run('entropy', [...noise(3, 30, 1.5, 0.03), ...Array(5).fill(0.3)]), 'entropy-collapse'),
    ).toHaveLength(1);
  });
  it('fires on a sudden fall under half its recent median, citing that median as a statistic', () => {
    const ts = run('entropy', [...noise(4, 40, 3, 0.05), ...noise(5, 40, 1.2, 0.05)]);
    const [a] = raised(ts, 'entropy-collapse');
    expect(a?.alert.message).toMatch(/under half its recent median/);
    expect(a?.alert.statistic).toMatchObject({ kind: 'median', toStep: 39 });
  });
  it('fires when it falls under half the level it had settled at (a negative entropy bonus after learning held)', () => {
    const settled = [...ramp(10, 0.69, 0.56), ...noise(4, 30, 0.56, 0.01)];
    const ts = run('entropy', [...settled, ...ramp(40, 0.56, 0.1), ...Array(10).fill(0.1)]);
    const [a] = raised(ts, 'entropy-collapse');
    expect(a?.alert.message).toMatch(/under half the level it had settled at, 0.5\d+ \(steps \d+–\d+\)/);
    expect(a?.alert.statistic).toMatchObject({ kind: 'median' });
  });
  it('a steady decline from the start is learning, not a collapse (a solved Acrobot ends near a tenth of its start)', () => {
    const acrobot = [...ramp(80, 1.07, 0.12), ...noise(14, 40, 0.1, 0.01)];
    expect(run('train/entropy', acrobot)).toEqual([]);
  });
  it('without an entropy_min of its own, the floor is a quarter of the early entropy: a healthy two-action policy is no collapse', () => {
    // CartPole: entropy starts at ln 2 = 0.69 and settles near 0.48 when learning works; the fixed 0.5 fired here.
    const healthy = [...ramp(40, 0.69, 0.5), ...noise(13, 100, 0.48, 0.01)];
    expect(run('train/entropy', healthy)).toEqual([]);
    const collapsed = [...ramp(40, 0.69, 0.5), ...ramp(20, 0.5, 0.1), ...Array(10).fill(0.1)];
    expect(rules(run('train/entropy', collapsed))).toEqual(['entropy-collapse']);
  });
  it('an entropy_min the run or the user set is the floor', () => {
    const { clock, engine } = harness();
    engine.setThresholds('r', { ...DEFAULT_THRESHOLDS, entropy_min: 0.55 }, ['entropy_min']);
    const out: AlertTransition[] = [];
    [...ramp(40, 0.69, 0.5), ...noise(13, 20, 0.48, 0.01)].forEach((v, i) => {
      clock.now += 1000;
      out.push(...engine.feed('r', 'train/entropy', i, 1e9 + i, v));
    });
    expect(raised(out, 'entropy-collapse')[0]?.alert.message).toMatch(/below entropy_min 0.55/);
  });
  it('stays quiet on a slow healthy drift', () => {
    expect(run('entropy', ramp(400, 1.6, 1.1))).toEqual([]);
  });
  it('reads SB3 train/entropy_loss as negative entropy', () => {
    expect(run('train/entropy_loss', noise(6, 50, -1.2, 0.02))).toEqual([]);
    const ts = run('train/entropy_loss', [...Array(10).fill(-1.2), ...Array(10).fill(-0.1)]);
    const [a] = raised(ts, 'entropy-collapse');
    // The alert cites the value as the file holds it; the message says it is judged as its negative.
    expect(a?.alert.value).toBe(-0.1);
    expect(a?.alert.message).toMatch(/^−train\/entropy_loss = 0.1 at step 10/);
    expect(a?.alert.severity).toBe('critical');
  });
});

describe('clip-fraction-out-of-band', () => {
  it('fires above 0.3, citing the point and the median judged; not inside the band', () => {
    const [a] = raised(run('clipfrac', [...Array(5).fill(0.2), 0.4, 0.45, 0.5]), 'clip-fraction-out-of-band');
    expect(a?.alert).toMatchObject({ step: 7, value: 0.5, tag: 'clipfrac' });
    expect(a?.alert.statistic).toEqual({ kind: 'median', fromStep: 3, toStep: 7, value: 0.4 });
    expect(a?.alert.message).toMatch(/many updates are clipped/);
    expect(run('clipfrac', noise(7, 200, 0.2, 0.03))).toEqual([]);
  });
  it("a default threshold says so in the alert itself; one the run's config set does not", () => {
    const xs = [...Array(5).fill(0.2), 0.4, 0.45, 0.5];
    const [byDefault] = raised(run('clipfrac', xs), 'clip-fraction-out-of-band');
    expect(byDefault?.alert.message).toMatch(
      /\(clip_low 0\.1, clip_high 0\.3: rlwatch's defaults, not set by you or the run's config\)$/,
    );
    const { clock, engine } = harness();
    engine.setThresholds('r', DEFAULT_THRESHOLDS, ['clip_low', 'clip_high']);
    const ts = xs.flatMap((v, i) => ((clock.now += 1000), engine.feed('r', 'clipfrac', i, 1e9 + i, v)));
    const [set] = raised(ts, 'clip-fraction-out-of-band');
    expect(set?.alert.message).not.toMatch(/default/);
    // A rule deriving its line from the run (no entropy_min set) cites no default it does not use.
    const entropy = [...noise(3, 30, 0.69, 0.01), 0.1, 0.1, 0.1];
    const [e] = raised(run('entropy', entropy), 'entropy-collapse');
    expect(e?.alert.message).not.toMatch(/default|entropy_min/);
  });
  it('a low clip fraction (normal for many PPO setups) is never a warning on its own', () => {
    // A healthy SB3 CartPole run: median clip fraction 4.9e-4 … 0.04; the old band fired at update 7 and stayed on.
    expect(run('train/clip_fraction', noise(7, 200, 0.03, 0.02).map(Math.abs))).toEqual([]);
    expect(run('clipfrac', Array(20).fill(0.0005))).toEqual([]);
  });
  it('treats an all-zero stream (TRL GRPO, one update per batch) as clipping not engaged', () => {
    expect(run('clip_ratio/region_mean', Array(50).fill(0))).toEqual([]);
  });
  it('ignores one outlier thanks to the median', () => {
    const xs = noise(8, 60, 0.2, 0.02);
    xs[30] = 0.9;
    expect(run('clipfrac', xs)).toEqual([]);
  });
});

describe('grad-norm-spike', () => {
  it('spikes of a few to ~20 times the median, single or repeated, are a heavy tail, not a blow-up (healthy A2C)', () => {
    const xs = noise(9, 100, 0.5, 0.05);
    xs[50] = 3;
    xs[55] = 3.5;
    for (let i = 74; i < 80; i++) xs[i] = 9;
    expect(run('pg_grad_norm', xs)).toEqual([]);
  });
  it('HF grad_norm is logged before clipping: a steady level above max_grad_norm is no spike', () => {
    expect(run('grad_norm', noise(21, 200, 2.4, 0.3))).toEqual([]);
    expect(run('grad_norm', Array(10).fill(2))).toEqual([]);
  });
  it('one point 30× the run’s own median raises at once, with its value', () => {
    const xs = noise(22, 100, 2.4, 0.3);
    xs[60] = 90;
    const [spike] = raised(run('grad_norm', xs), 'grad-norm-spike');
    expect(spike?.alert).toMatchObject({ step: 60, value: 90, severity: 'warning' });
    expect(spike?.alert.message).toMatch(
      /^grad_norm = 90 at step 60, \d+(\.\d+)?× its recent median [\d.]+$/,
    );
    expect(spike?.alert.statistic).toMatchObject({ kind: 'median', fromStep: 10, toStep: 59 });
  });
  it('a gradient explosion (×1000) is critical on its own update', () => {
    const xs = noise(22, 100, 30, 10);
    xs[60] = 15100;
    const [spike] = raised(run('train/grad_norm', xs), 'grad-norm-spike');
    expect(spike?.alert).toMatchObject({ step: 60, value: 15100, severity: 'critical' });
  });
});

describe('reward rules', () => {
  it('reward plateau: 5 epochs without improvement (seed 003)', () => {
    const ts = run('Epoch/AvgReward', [0.1, 0.2, 0.3, 0.4, 0.4, 0.39, 0.4, 0.38, 0.4]);
    expect(raised(ts, 'reward-plateau')[0]?.alert.step).toBe(8);
  });
  it('a reward held at its task ceiling (CartPole 500) is solved, not a plateau; a noisy level below its best is', () => {
    // SB3's rollout/ep_rew_mean: rises from ~20, reaches the 500 cap and stays there (one wobble to 498.7).
    const rise = Array.from({ length: 80 }, (_, i) => 20 + 6 * i);
    const held = Array.from({ length: 300 }, (_, i) => (i === 150 ? 498.7 : 500));
    expect(raised(run('rollout/ep_rew_mean', [...rise, ...held]), 'reward-plateau')).toEqual([]);
    // The same climb stalling at a level it keeps wobbling under is still a plateau.
    const wobbly = noise(4, 300, 300, 15);
    expect(
      raised(run('rollout/ep_rew_mean', [...rise.slice(0, 50), ...wobbly]), 'reward-plateau'),
    ).toHaveLength(1);
    // A reward stuck at one value from its start never rose to a ceiling: a plateau.
    expect(raised(run('rollout/ep_rew_mean', Array(300).fill(9.5)), 'reward-plateau')).toHaveLength(1);
  });
  it('no plateau on a rising per-step reward with noise', () => {
    expect(
      rules(
        run(
          'Train/AvgReward',
          noise(10, 400, 0, 0.05).map((x, i) => x + i * 0.005),
        ),
      ),
    ).toEqual([]);
  });
  it('reward variance above 0.01 after warm-up, on epoch tags only', () => {
    expect(rules(run('Epoch/RewardVariance', Array(12).fill(0.05)))).toEqual(['reward-variance-high']);
    expect(run('Epoch/RewardVariance', Array(30).fill(0.005))).toEqual([]);
    expect(run('Train/RewardVariance', Array(30).fill(0.05))).toEqual([]);
  });
  it('NaN / Inf in a loss or reward is immediate and critical', () => {
    const ts = run('Train/Loss', [1, 0.9, NaN, 0.8, 0.8, 0.8, 0.8, 0.8]);
    expect(ts[0]).toMatchObject({
      kind: 'raised',
      alert: { rule: 'non-finite', severity: 'critical', step: 2 },
    });
    expect(ts[1]?.kind).toBe('cleared');
    expect(rules(run('my_custom_reward', [1, Infinity]))).toEqual(['non-finite']);
    expect(run('unknown_metric', [1, NaN])).toEqual([]);
  });
});

describe('learning-stagnation', () => {
  it('KL exactly 0 for 5 updates after it moved: the policy no longer changes (a learning rate silently 0)', () => {
    const ts = run('train/approx_kl', [...noise(15, 30, 0.005, 0.001), ...Array(10).fill(0)]);
    const [a] = raised(ts, 'learning-stagnation');
    expect(a?.alert).toMatchObject({ step: 34, value: 0, tag: 'train/approx_kl', severity: 'warning' });
    expect(a?.alert.message).toMatch(/exactly 0 for 5 updates/);
  });
  it('a GRPO group whose rewards all agree (reward_std 0) gives no advantage to learn from', () => {
    const ts = run('reward_std', [...noise(16, 30, 0.25, 0.02), ...Array(6).fill(0)]);
    expect(raised(ts, 'learning-stagnation')[0]?.alert.message).toMatch(/advantages are 0/);
  });
  it('not a schedule that ends at 0, nor a metric that was always 0', () => {
    expect(run('train/learning_rate', [...ramp(50, 3e-4, 1e-6), 0])).toEqual([]);
    expect(run('train/approx_kl', Array(30).fill(0))).toEqual([]);
  });
});

describe('performance and system rules', () => {
  it('response truncation rising, not a constant level', () => {
    expect(
      rules(run('response_length/clip_ratio', [...Array(10).fill(0.02), ...Array(10).fill(0.35)])),
    ).toEqual(['response-truncation-rising']);
    expect(run('completions/clipped_ratio', Array(30).fill(0.6))).toEqual([]);
  });
  it('importance ratio far from 1', () => {
    expect(rules(run('actor/is_ratio/mean', Array(5).fill(1.4)))).toEqual(['importance-ratio-off']);
    expect(run('actor/is_ratio/mean', noise(11, 100, 1, 0.03))).toEqual([]);
  });
  it('generation throughput below 1 token/s (seed 000)', () => {
    expect(rules(run('Performance/Generation_TokensPerSec', [5, 5, 0.5, 0.4, 0.6]))).toEqual([
      'generation-throughput-low',
    ]);
    expect(run('Performance/Generation_TokensPerSec', [5, 0.5, 5, 0.5, 5])).toEqual([]);
  });
  it('GPU utilisation < 50 % only while training', () => {
    const low = Array(20).fill(20);
    expect(run('System/GPU_Utilization', low)).toEqual([]);
    expect(rules(run('System/GPU_Utilization', low, () => [['Train/Loss', 1]]))).toEqual(['gpu-util-low']);
  });
  it('memory > 90 % and GPU memory nearly full', () => {
    expect(rules(run('System/Memory_Percent', [80, 92, 93, 94]))).toEqual(['memory-high']);
    expect(run('System/Memory_Percent', [80, 92, 85, 91, 88, 95, 86])).toEqual([]);
    expect(rules(run('system/gpu.0.memoryAllocated', [96, 97, 98]))).toEqual(['gpu-memory-high']);
  });
});

describe('restarts', () => {
  it('a step going backwards resets windows rather than firing', () => {
    // Before the restart the clip fraction is healthy; the resumed run repeats the same steps.
    const xs = noise(12, 50, 0.2, 0.02);
    const { clock, engine } = harness();
    const out: AlertTransition[] = [];
    for (let i = 0; i < 50; i++) out.push(...engine.feed('r', 'pg_grad_norm', i, i, 0.5 + (xs[i]! - 0.2)));
    clock.now = 1;
    for (let i = 20; i < 50; i++) out.push(...engine.feed('r', 'pg_grad_norm', i, i, 5 + (xs[i]! - 0.2)));
    // Spikes relative to the old timeline would fire; after the reset the new level is the baseline.
    expect(out).toEqual([]);
  });
});
