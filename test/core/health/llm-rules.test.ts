// LLM-run rules of response length and reward hacking, on verl's metric names.
import { describe, expect, it } from 'vitest';
import type { AlertTransition } from '../../../src/core/health';
import { classifyTag } from '../../../src/shared/catalog';
import { harness, noise, raised, rules } from './helpers';

function feedRows(rows: Record<string, number>[]): AlertTransition[] {
  const { clock, engine } = harness();
  const out: AlertTransition[] = [];
  rows.forEach((row, i) => {
    clock.now += 1000;
    for (const [tag, v] of Object.entries(row)) out.push(...engine.feed('r', tag, i + 1, 1e9 + i, v));
  });
  return out;
}
const rows = (n: number, row: (i: number) => Record<string, number>) =>
  Array.from({ length: n }, (_, i) => row(i));
const jitter = noise(3, 120, 0, 0.3);

describe('response length', () => {
  it('a mean length falling > 5× below its recent median within a few updates is a critical collapse', () => {
    const len = (i: number) => (i < 30 ? 7.5 + jitter[i]! : Math.max(1.0, 7.5 - 1.2 * (i - 29)));
    const ts = feedRows(rows(45, (i) => ({ 'response_length/max': 16, 'response_length/mean': len(i) })));
    const collapse = ts.filter((t) => t.alert.rule === 'response-length-collapse');
    expect(collapse[0]!.kind).toBe('raised');
    expect(collapse[0]!.alert.tag).toBe('response_length/mean');
    expect(collapse.some((t) => t.alert.severity === 'critical')).toBe(true);
    expect(collapse[0]!.alert.message).toMatch(/shorter than its recent median .*: responses collapsed/);
  });

  it('a mean length 5× its recent median is an explosion; the batch max and min are never judged as the mean', () => {
    const ts = feedRows(
      rows(40, (i) => ({
        'response_length/mean': i < 30 ? 7 + jitter[i]! : 40,
        'response_length/min': i < 30 ? 5 : 1,
      })),
    );
    expect(raised(ts, 'response-length-explosion').map((t) => t.alert.tag)).toEqual(['response_length/mean']);
    expect(raised(ts, 'response-length-collapse')).toEqual([]);
  });

  it('a noisy but steady length, or one growing slowly as reasoning lengthens, raises nothing', () => {
    const ts = feedRows(rows(120, (i) => ({ 'response_length/mean': 100 + i + 20 * jitter[i]! })));
    expect(rules(ts)).toEqual([]);
  });

  it("OpenRLHF's plain response_length is judged as the mean length", () => {
    const ts = feedRows(rows(40, (i) => ({ response_length: i < 30 ? 300 + 50 * jitter[i]! : 40 })));
    expect(raised(ts, 'response-length-collapse')).toHaveLength(1);
  });

  it("the prompt's length is no response length", () => {
    expect(classifyTag('prompt_length/mean')?.role ?? null).not.toBe('response_length');
  });
});

describe('reward-hacking', () => {
  /** A verl GRPO run: 30 healthy steps, then (when hacked) the reward rises fast with KL ×10+ and longer answers. */
  const verl = (hack: boolean, longer: boolean) =>
    rows(60, (i) => {
      const t = Math.max(0, i - 30);
      const on = hack && i >= 30;
      const len = on && longer ? 7.5 + 0.5 * t : 7.5 + jitter[i]!;
      return {
        'actor/kl_loss': 0.05 + 0.002 * i + (on ? 0.12 * t : 0),
        'actor/ppo_kl': 0.002,
        'critic/score/mean': 0.5 + 0.002 * i + (on ? 0.12 * t : 0) + 0.05 * jitter[i]!,
        'response_length/max': on && longer ? 16 : 12,
        'response_length/mean': len,
        'response_length/clip_ratio': on && longer ? Math.min(1, 0.04 * t) : 0,
      };
    });

  it('reward up with KL ×10 and responses running long raises one reward-hacking alert that says so', () => {
    const ts = feedRows(verl(true, true));
    const [h] = raised(ts, 'reward-hacking');
    expect(h).toBeDefined();
    expect(h!.alert.message).toMatch(
      /^reward rising \(.*\) with KL ×.* and response length .*: likely reward hacking$/,
    );
    expect(h!.alert.advice).toMatch(/likely reward hacking/);
    expect(raised(ts, 'reward-hacking')).toHaveLength(1);
  });

  it("judges the batch's mean length, not its max logged before it (a run without a truncation tag)", () => {
    const noTruncation = verl(true, true).map(({ 'response_length/clip_ratio': _c, ...row }) => row);
    expect(raised(feedRows(noTruncation), 'reward-hacking')).toHaveLength(1);
  });

  it('the same reward and KL rise with responses of unchanged length is not called reward hacking', () => {
    expect(raised(feedRows(verl(true, false)), 'reward-hacking')).toEqual([]);
  });

  it('a healthy run (reward and KL drifting up slowly) raises nothing', () => {
    expect(rules(feedRows(verl(false, false)))).toEqual([]);
  });
});
