// Incident aliases: short hex of a hash of the full id, the same every time, lengthened where two collide.

import { describe, expect, test } from 'vitest';
import { idsOfAlias, incidentAlias, incidentAliases, incidentHash } from '../../src/shared/incident-alias';
import { AmbiguousAliasError, findIncident, UnknownAlertError } from '../../src/core/watch/replay-incident';
import type { AlertInfo } from '../../src/shared/domain';

const ID = '["ppo_demo","kl-above-target","kl",120]';

describe('incident aliases', () => {
  test('an alias is 4 hex digits of a 64-bit FNV-1a hash, the same for the same id', () => {
    // FNV-1a 64 of the empty string and of "a" (the published test vectors).
    expect(incidentHash('')).toBe('cbf29ce484222325');
    expect(incidentHash('a')).toBe('af63dc4c8601ec8c');
    expect(incidentAlias(ID)).toMatch(/^[0-9a-f]{4}$/);
    expect(incidentAlias(ID)).toBe(incidentHash(ID).slice(0, 4));
  });

  test('two ids sharing the first 4 digits are told apart by longer aliases', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => `["run${i}","stalled-run",null,${i}]`);
    const aliases = incidentAliases(ids);
    expect(new Set(aliases.values()).size).toBe(ids.length);
    const long = [...aliases.values()].filter((a) => a.length > 4);
    expect(long.length).toBeGreaterThan(0); // 2000 ids in 65536 four-digit aliases collide somewhere
    for (const [id, a] of [...aliases].filter(([, a]) => a.length > 4))
      expect(idsOfAlias(a, ids)).toEqual([id]);
  });

  test('findIncident takes the alias, refuses an ambiguous one, and still takes the full id', () => {
    const alerts = [ID, '["ppo_demo","entropy-collapse","entropy",300]'].map(
      (id) => ({ id, run: 'ppo_demo' }) as AlertInfo,
    );
    expect(findIncident(alerts, incidentAlias(ID)).id).toBe(ID);
    expect(findIncident(alerts, incidentAlias(ID).toUpperCase()).id).toBe(ID);
    expect(findIncident(alerts, ID).id).toBe(ID);
    expect(() => findIncident(alerts, 'ffffffffffffffff')).toThrow(UnknownAlertError);
    // Two ids whose hashes share their first 4 digits: that prefix fits both, a longer alias one.
    const ids = Array.from({ length: 2000 }, (_, i) => `["run${i}","stalled-run",null,${i}]`);
    const byPrefix = new Map<string, string[]>();
    for (const id of ids) byPrefix.set(incidentAlias(id), [...(byPrefix.get(incidentAlias(id)) ?? []), id]);
    const pair = [...byPrefix.values()].find((g) => g.length > 1)!.slice(0, 2);
    const twins = pair.map((id) => ({ id, run: 'r' }) as AlertInfo);
    expect(() => findIncident(twins, incidentAlias(pair[0]!))).toThrow(AmbiguousAliasError);
    expect(findIncident(twins, incidentAliases(pair).get(pair[1]!)!).id).toBe(pair[1]);
  });
});
