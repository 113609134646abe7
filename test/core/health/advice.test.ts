// Alert text a user sees: one advice per rule (a role's rule takes the catalog's advice), no internal seed references.
import { describe, expect, it } from 'vitest';
import { DemoSimulation, DEMO_CONFIG } from '../../../src/core/demo/simulation';
import { HealthEngine, RULE_ADVICE, RULE_IDS, resolveThresholds } from '../../../src/core/health';
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
});
