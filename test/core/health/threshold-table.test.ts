// The thresholds as the contract carries them: each value with its origin (your setting, run config, catalog default).
import { describe, expect, it } from 'vitest';
import { resolveThresholds, thresholdTable } from '../../../src/core/health';

describe('thresholdTable', () => {
  it('a run without config: every threshold is the catalog default, none cites a config', () => {
    const t = thresholdTable(resolveThresholds(null, null));
    expect(t.target_kl).toEqual({ key: 'target_kl', value: 0.02, origin: 'default' });
    expect(Object.values(t).filter((x) => x.origin !== 'default' || x.configPath !== undefined)).toEqual([]);
  });

  it('a nested run config names the path it came from; the user setting wins over it', () => {
    const config = { ppo: { target_kl: 0.05 }, optim: { max_grad_norm: 0.5 } };
    const fromConfig = thresholdTable(resolveThresholds(null, config));
    expect(fromConfig.target_kl).toEqual({
      key: 'target_kl',
      value: 0.05,
      origin: 'run-config',
      configPath: 'ppo.target_kl',
    });
    const fromUser = thresholdTable(resolveThresholds({ target_kl: 0.1 }, config));
    expect(fromUser.target_kl).toEqual({ key: 'target_kl', value: 0.1, origin: 'user' });
    expect(fromUser.max_grad_norm).toMatchObject({ origin: 'run-config', configPath: 'optim.max_grad_norm' });
  });
});
