// Alert ids: built and parsed in one module; parsing is total because ids come back from clients.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HealthEngine, RULE_IDS, alertId, parseAlertId } from '../../../src/core/health';

describe('alert ids', () => {
  it('round-trip any run, rule and tag', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.constantFrom(...RULE_IDS),
        fc.option(fc.string(), { nil: null }),
        (run, rule, tag) => {
          expect(parseAlertId(alertId(run, rule, tag))).toEqual({ run, rule, tag });
        },
      ),
    );
  });

  it('parse garbage to null and never throw', () => {
    for (const id of [
      '',
      'not json',
      '[',
      'null',
      '{"run":"r"}',
      '["r","kl-above-target"]',
      '["r","kl-above-target","t","extra"]',
      '[1,"kl-above-target","t"]',
      '["r","no-such-rule","t"]',
      '["r","kl-above-target",7]',
      '["r",null,null]',
    ])
      expect(parseAlertId(id)).toBeNull();
    fc.assert(fc.property(fc.string(), (id) => void parseAlertId(id)));
    fc.assert(fc.property(fc.json(), (id) => void parseAlertId(id)));
  });

  it('an engine given a garbage id on snooze refuses it and keeps working', () => {
    const e = new HealthEngine({ clock: () => 0 });
    expect(e.snooze('not json', 100)).toBe(false);
    e.feed('r', 'kl', 0, 0, 0.01);
    expect(() => e.removeRun('r')).not.toThrow();
  });
});
