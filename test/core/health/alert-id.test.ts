// Alert ids: built and parsed in one module; parsing is total because ids come back from clients.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HealthEngine, RULE_IDS, alertId, parseAlertId } from '../../../src/core/health';

describe('alert ids', () => {
  it('round-trip any run, rule, quantity and onset step', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.constantFrom(...RULE_IDS),
        fc.option(fc.string(), { nil: null }),
        fc.integer(),
        (run, rule, quantity, onsetStep) => {
          expect(parseAlertId(alertId(run, rule, quantity, onsetStep))).toEqual({
            run,
            rule,
            quantity,
            onsetStep,
          });
        },
      ),
    );
  });

  it('two incidents of one rule on one run have two ids (each can be exported), the same incident one', () => {
    expect(alertId('r', 'grad-norm-spike', 'grad_norm', 100)).not.toBe(
      alertId('r', 'grad-norm-spike', 'grad_norm', 300),
    );
    expect(alertId('r', 'grad-norm-spike', 'grad_norm', 100)).toBe(
      alertId('r', 'grad-norm-spike', 'grad_norm', 100),
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
      '["r","kl-above-target","t"]',
      '["r","kl-above-target","t",1,"extra"]',
      '["r","kl-above-target","t","1"]',
      '[1,"kl-above-target","t",1]',
      '["r","no-such-rule","t",1]',
      '["r","kl-above-target",7,1]',
      '["r",null,null,1]',
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
