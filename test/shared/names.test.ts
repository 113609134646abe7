// Run-name shortening for the sidebar: short, distinct, and keeping the part that tells runs apart.

import { describe, expect, test } from 'vitest';
import { fitNames, NameFitter, shortenNames, titleParts } from '../../src/shared/names';

/** Run names as the corpus folder gives them (27 runs, many sharing long prefixes). */
const CORPUS = [
  'tfevents/tensorboard_logs/20250902-164603',
  'tfevents/tensorboard_logs/20250902-210556',
  'tfevents/tensorboard_logs/20250902-210556/PPO_Total_Action_Distribution_Action_0',
  'tfevents/tensorboard_logs/20250902-210556/PPO_Total_Action_Distribution_Action_1',
  'tfevents/experiments/results/logs/PPO_debug_seed_0/PPO_1',
  'tfevents/experiments/results/logs/PPO_debug_seed_0/PPO_2',
  'tfevents/experiments/results/logs/A2C_debug_seed_0/A2C_1',
  'tfevents/experiments/results/logs/DQN_debug_seed_0/DQN_1',
  'wandb/480284856__RLHF_Training/offline-run-20230413_033614-x199n1yz',
  'wandb/480284856__RLHF_Training/offline-run-20230413_090116-iotz2fip',
  'demo',
];

describe('run name shortening', () => {
  test('names that fit are unchanged', () => {
    expect(shortenNames(['demo', 'runs/a'], 30)).toEqual(['demo', 'runs/a']);
  });

  test('every name fits and all stay distinct at sidebar widths', () => {
    for (const max of [16, 20, 24, 30, 40]) {
      const short = shortenNames(CORPUS, max);
      expect(short.every((s) => s.length <= max)).toBe(true);
      expect(new Set(short).size).toBe(CORPUS.length);
    }
  });

  test('the differing segment survives, not the shared prefix (no more "tfevents/tensorbo…" three times)', () => {
    const short = shortenNames(CORPUS, 24);
    expect(short[0]).toContain('164603');
    expect(short[1]).toContain('210556');
    expect(short[2]).toContain('Action_0');
    expect(short[3]).toContain('Action_1');
    expect(short[6]).toContain('A2C');
    expect(short[8]).toContain('x199n1yz');
    expect(short.filter((s) => s.startsWith('tfevents/tensorbo')).length).toBeLessThan(3);
    expect(short[0]).toMatch(/…/);
  });

  test("a tracker database's runs (DB#NAME) keep their run name whole, not the database's", () => {
    const short = shortenNames(['grpo.db#grpo-qwen-lr1e-6', 'grpo.db#grpo-qwen-lr3e-6'], 18);
    expect(short).toEqual(['…grpo-qwen-lr1e-6', '…grpo-qwen-lr3e-6']);
  });

  test('a name that is the prefix of another keeps its ending', () => {
    const short = shortenNames(['very/long/common/prefix/run', 'very/long/common/prefix/run/child'], 14);
    expect(new Set(short).size).toBe(2);
    expect(short[1]).toContain('child');
  });

  test("a name's shortening does not depend on the list's order", () => {
    for (const max of [16, 24, 40]) {
      const reversed = [...CORPUS].reverse();
      expect(shortenNames(reversed, max)).toEqual(shortenNames(CORPUS, max).reverse());
    }
  });

  test('a name listed twice is told apart from the other names, not from its copy', () => {
    const short = shortenNames(
      ['logs/seed_0/PPO_run_1', 'logs/seed_0/PPO_run_2', 'logs/seed_0/PPO_run_1'],
      12,
    );
    expect(short[0]).toBe(short[2]);
    expect(short[0]).toContain('1');
    expect(short[1]).toContain('2');
    expect(short[0]).not.toBe(short[1]);
  });
});

describe('fitting names to a pixel width', () => {
  const names = ['tfevents/experiments/PPO_1', 'tfevents/experiments/A2C_1', 'demo'];
  /** A font where "W" is twice as wide as other letters. */
  const measure = (s: string): number => [...s].reduce((w, c) => w + (c === 'W' ? 16 : 8), 0);

  test('names that fit are kept whole', () => {
    expect(fitNames(names, 1000, measure)).toEqual(names);
  });

  test('otherwise the longest limit at which every name fits, still distinct', () => {
    const fitted = fitNames(names, 120, measure);
    expect(fitted.every((s) => measure(s) <= 120)).toBe(true);
    expect(new Set(fitted).size).toBe(3);
    expect(fitted[0]).toContain('PPO_1');
    // One more character would not fit somewhere.
    expect(
      shortenNames(names, Math.max(...fitted.map((s) => s.length)) + 1).some((s) => measure(s) > 120),
    ).toBe(true);
  });
});

describe('chart titles', () => {
  test("cut in the middle: the metric's own name (last path part) always shows", () => {
    expect(titleParts('rewards/diversity_reward_fn/mean')).toEqual(['rewards/diversity_reward_fn', '/mean']);
    expect(titleParts('rewards/diversity_reward_fn/std')).toEqual(['rewards/diversity_reward_fn', '/std']);
    expect(titleParts('A2C/Episode/cumulative_reward')).toEqual(['A2C/Episode', '/cumulative_reward']);
    // A long last part or no path: its last characters.
    expect(titleParts('completions/mean_terminated_length_of_all')).toEqual([
      'completions/mean_termin',
      'ated_length_of_all',
    ]);
    expect(titleParts('loss')).toEqual(['', 'loss']);
    expect(titleParts('eval_samples_per_second_total')).toEqual(['eval_sample', 's_per_second_total']);
  });
});

describe('the run list name fitter (#36)', () => {
  const measure = (s: string, font: string): number => s.length * (font.startsWith('bold') ? 10 : 8);
  const names = Array.from({ length: 100 }, (_, i) => `experiments/sweep/run_${String(i).padStart(3, '0')}`);

  test('until the font is known names stay whole and nothing is measured', () => {
    const calls: string[] = [];
    const fitter = new NameFitter((t, f) => (calls.push(t), measure(t, f)));
    expect(fitter.fit(names, 100, null)).toEqual(names);
    expect(calls).toEqual([]);
  });

  test('each name is measured once per font, across repeated lists and a new room; what it gives is fitNames', () => {
    const calls: string[] = [];
    const fitter = new NameFitter((t, f) => (calls.push(`${f}|${t}`), measure(t, f)));
    expect(fitter.fit(names, 1000, 'bold 13px')).toEqual(
      fitNames(names, 1000, (t) => measure(t, 'bold 13px')),
    );
    expect(calls.length).toBe(names.length);
    fitter.fit([...names], 1000, 'bold 13px');
    expect(calls.length).toBe(names.length);
    // A narrower room: the whole names are not measured again (only the shortened candidates are new).
    const narrow = fitter.fit(names, 200, 'bold 13px');
    expect(narrow).toEqual(fitNames(names, 200, (t) => measure(t, 'bold 13px')));
    expect(new Set(calls).size).toBe(calls.length);
    // One more run: only its name is new.
    const before = calls.length;
    fitter.fit([...names, 'experiments/sweep/run_100'], 1000, 'bold 13px');
    expect(calls.slice(before)).toEqual(['bold 13px|experiments/sweep/run_100']);
    // Another font measures again.
    fitter.fit(names, 1000, 'normal 12px');
    expect(calls.filter((c) => c.startsWith('normal 12px|')).length).toBe(names.length);
  });
});
