// Alert text a user sees: one advice per rule (a role's rule takes the catalog's advice), no internal seed references.
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DemoSimulation, DEMO_CONFIG } from '../../../src/core/demo/simulation';
import { HealthEngine, RULE_ADVICE, RULE_IDS, resolveThresholds, ruleAdvice } from '../../../src/core/health';
import { readEventFile } from '../../../src/core/tfevents';
import { ROLES } from '../../../src/shared/catalog';

const INTERNAL_REF = /seed \d/i;

describe('rule advice', () => {
  it('every rule has advice, none cites a seed', () => {
    for (const id of RULE_IDS) {
      expect(RULE_ADVICE[id].length).toBeGreaterThan(10);
      expect(RULE_ADVICE[id]).not.toMatch(INTERNAL_REF);
    }
  });

  it("a rule about one role shows that role's catalog advice, so the text lives in one place", () => {
    expect(RULE_ADVICE['kl-above-target']).toBe(ROLES.kl.advice);
    expect(RULE_ADVICE['entropy-collapse']).toBe(ROLES.entropy.advice);
    expect(RULE_ADVICE['clip-fraction-out-of-band']).toBe(ROLES.clip_fraction.advice);
    expect(RULE_ADVICE['response-truncation-rising']).toBe(ROLES.response_truncation.advice);
    expect(RULE_ADVICE['gpu-util-low']).toBe(ROLES.gpu_util.advice);
    expect(RULE_ADVICE['memory-high']).toBe(ROLES.memory_pct.advice);
  });

  it('alerts raised on the demo run carry no seed reference in message or advice', () => {
    const sim = new DemoSimulation(42);
    const clock = { now: 0 };
    const e = new HealthEngine({ clock: () => clock.now });
    e.setThresholds('demo', resolveThresholds(null, DEMO_CONFIG).values);
    const texts: string[] = [];
    for (let i = 0; i < 600; i++) {
      clock.now = i * 250;
      for (const [tag, v] of Object.entries(sim.step(i).scalars))
        for (const t of e.feed('demo', tag, i, 1e9 + i, v)) texts.push(t.alert.message, t.alert.advice ?? '');
    }
    expect(texts.length).toBeGreaterThan(10);
    for (const text of texts) expect(text).not.toMatch(INTERNAL_REF);
  });

  it('every rule has advice in both worlds; classic advice never speaks of tokens or temperature pulses', () => {
    for (const id of RULE_IDS) {
      expect(ruleAdvice(id, 'classic').length, id).toBeGreaterThan(10);
      expect(ruleAdvice(id, 'llm')).toBe(RULE_ADVICE[id]);
    }
    expect(ruleAdvice('entropy-collapse', 'classic')).not.toMatch(/temperature|token/);
  });

  it('an SB3 A2C run (highway-env) raising entropy collapse gets classic advice', () => {
    const dir = join(__dirname, '../../fixtures/tfevents/0pk0__rl4avs');
    const file = readdirSync(dir).find((f) => f.includes('1755214641'))!;
    const r = readEventFile(join(dir, file));
    const e = new HealthEngine({ clock: () => 0 });
    const advice: string[] = [];
    for (const [tag, s] of r.series.entries())
      for (const t of e.feedBatch('run', tag, s.steps(), s.wallTimes(), s.values()))
        if (t.kind === 'raised' && t.alert.rule === 'entropy-collapse') advice.push(t.alert.advice ?? '');
    expect(advice).toHaveLength(1);
    expect(advice[0]).not.toMatch(/temperature|token/);
    expect(advice[0]).toMatch(/ent_coef/);
  });

  it('the demo run (LLM tags) keeps the LLM advice', () => {
    const sim = new DemoSimulation(42);
    const e = new HealthEngine({ clock: () => 0 });
    e.setThresholds('demo', resolveThresholds(null, DEMO_CONFIG).values);
    const advice = new Set<string>();
    for (let i = 0; i < 600; i++)
      for (const [tag, v] of Object.entries(sim.step(i).scalars))
        for (const t of e.feed('demo', tag, i, 1e9 + i, v))
          if (t.kind === 'raised' && t.alert.rule === 'entropy-collapse') advice.add(t.alert.advice ?? '');
    expect([...advice]).toEqual([RULE_ADVICE['entropy-collapse']]);
  });
});
