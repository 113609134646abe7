// watch's compact default as text: one line per run per update with the key metrics, alerts and status changes at once.

import { describe, expect, test } from 'vitest';
import { colourWanted, CompactWatch, formatLine } from '../../src/cli/watch-text';
import type { AlertLine, WatchLine } from '../../src/core/watch/watch-lines';
import { incidentAlias } from '../../src/shared/incident-alias';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
/** The 14 tags a PPO step logs, one scalars line each, as a read hands them over. */
const TAGS: [string, number][] = [
  ['train/reward', 1.5],
  ['losses/approx_kl', 0.02],
  ['losses/entropy', 1.25],
  ['train/loss', -0.01],
  ['losses/value_loss', 0.5],
  ['losses/clipfrac', 0.1],
  ['losses/explained_variance', 0.9],
  ['charts/learning_rate', 0.0003],
  ['charts/SPS', 1200],
  ['losses/old_approx_kl', 0.019],
  ['charts/episodic_length', 200],
  ['rollout/ep_len', 200],
  ['time/fps', 1200],
  ['misc/grad_norm', 0.7],
];
const step = (run: string, s: number): WatchLine[] =>
  TAGS.map(([tag, v]) => ({ t: T0, type: 'scalars', run, tag, points: [[s, 1, v]] }));
const ID = '["ppo","kl-above-target","kl",120]';
const alert = (state: AlertLine['state'], severity: AlertLine['severity'] = 'critical'): AlertLine => ({
  t: T0,
  type: 'alert',
  run: 'ppo',
  rule: 'kl-above-target',
  severity,
  state,
  message: 'KL 0.5 above target',
  tag: 'losses/approx_kl',
  step: 120,
  wallTime: 1,
  value: 0.5,
  tags: ['losses/approx_kl'],
  statistic: null,
  id: ID,
});

describe('CompactWatch', () => {
  test('14 tags of a step in two runs print one line per run: step, reward, KL, entropy, loss', () => {
    const w = new CompactWatch({ colour: false });
    const now = [...step('ppo', 100), ...step('grpo', 7)].map((l) => w.push(l)).join('');
    expect(now).toBe('');
    expect(w.flush(T0)).toBe(
      '12:00:00  grpo  step 7  reward 1.5  KL 0.02  entropy 1.25  loss -0.01\n' +
        '12:00:00  ppo  step 100  reward 1.5  KL 0.02  entropy 1.25  loss -0.01\n',
    );
    expect(w.flush(T0)).toBe('');
    // The verbose form of the same step is a line per tag.
    expect(step('ppo', 100).map(formatLine).join('').split('\n').length - 1).toBe(14);
  });

  test('an alert prints at once with its alias beside the id; the run line counts it until it clears', () => {
    const w = new CompactWatch({ colour: false });
    for (const l of step('ppo', 120)) w.push(l);
    expect(w.push(alert('raised'))).toBe(
      `12:00:00  CRITICAL raised: ppo kl-above-target — KL 0.5 above target  [${incidentAlias(ID)} = ${ID}]\n`,
    );
    expect(w.flush(T0)).toMatch(/ppo {2}step 120 .* {2}1 critical\n$/);
    w.push(alert('cleared'));
    for (const l of step('ppo', 121)) w.push(l);
    expect(w.flush(T0)).not.toContain('critical');
  });

  test('status changes print at once and become the run line status; the system line every 10 s', () => {
    const w = new CompactWatch({ colour: false });
    expect(w.push({ t: T0, type: 'run', run: 'ppo', state: 'stalled' })).toBe('12:00:00  run ppo stalled\n');
    for (const l of step('ppo', 5)) w.push(l);
    expect(w.flush(T0)).toMatch(/ {2}stalled\n$/);
    const sys = (t: number): WatchLine => ({ t, type: 'system', cpuPct: 10, memPct: 20, gpus: [] }) as never;
    const printed = [0, 1000, 5000, 9999, 10_000, 15_000, 20_000].map((dt) => w.push(sys(T0 + dt)));
    expect(printed.map((p) => p !== '')).toEqual([true, false, false, false, true, false, true]);
  });

  test('colour only when asked: a critical raise is red, a clear green; plain words otherwise', () => {
    const coloured = new CompactWatch({ colour: true });
    expect(coloured.push(alert('raised'))).toContain('\u001b[1;31mCRITICAL raised');
    expect(coloured.push(alert('cleared'))).toContain('\u001b[32mCRITICAL cleared');
    expect(new CompactWatch({ colour: false }).push(alert('raised'))).not.toContain('\u001b');
    expect(colourWanted(true, {})).toBe(true);
    expect(colourWanted(true, { NO_COLOR: '1' })).toBe(false);
    expect(colourWanted(false, {})).toBe(false);
    expect(colourWanted(undefined, {})).toBe(false);
  });

  test('run names and tags in the compact line are escaped: no escape sequence or fake line reaches the terminal', () => {
    const w = new CompactWatch({ colour: true });
    const evil = 'run\u001b[2J\n12:00:00  CRITICAL raised: fake';
    w.push({ t: T0, type: 'scalars', run: evil, tag: 'train/reward', points: [[1, 1, 2]] });
    const out = w.flush(T0);
    expect(out.split('\n')).toHaveLength(2);
    expect(out).toContain('run\\e[2J\\n12:00:00');
    expect(out).not.toContain('\u001b[2J');
  });
});
