// The performance budget's verdicts: the 2× gate, widened (never narrowed) by how much slower the machine is.
import { describe, expect, it } from 'vitest';
import { budgetVerdicts, machineScale, type Budget } from '../../scripts/lib/budget-verdicts.js';

const budget: Budget = {
  gate: 2,
  scale: { key: 'startup.node_ms', last: 60 },
  figures: [
    { key: 'inspect_ms', what: 'inspect', bench: 'reading', unit: 'ms', budget: 500 },
    { key: 'read_mb_s', what: 'read', bench: 'reading', unit: 'MB/s', budget: 600, better: 'higher' },
    { key: 'hover_ms', what: 'hover', bench: 'hover', unit: 'ms', budget: 16, gated: false },
  ],
};
const verdicts = (m: Record<string, number>) =>
  Object.fromEntries(
    budgetVerdicts(budget, budget.figures, new Map(Object.entries(m))).map((v) => [v.key, v]),
  );

describe('the performance budget', () => {
  it('on the machine it was set on, a time fails past 2× its budget and a throughput below half', () => {
    const at = verdicts({ 'startup.node_ms': 60, inspect_ms: 999, read_mb_s: 301, hover_ms: 90 });
    expect([at.inspect_ms!.ok, at.read_mb_s!.ok, at.hover_ms!.ok]).toEqual([true, true, true]);
    expect(at.inspect_ms!.limit).toBe(1000);
    const past = verdicts({ 'startup.node_ms': 60, inspect_ms: 1001, read_mb_s: 299, hover_ms: 90 });
    expect([past.inspect_ms!.ok, past.read_mb_s!.ok]).toEqual([false, false]);
    // Not gated: printed, never failed.
    expect(past.hover_ms!.ok).toBe(true);
  });

  it('on a machine where node starts 2.5× slower, the limits widen 2.5× and a figure past them still fails', () => {
    const m = { 'startup.node_ms': 150, inspect_ms: 2400, read_mb_s: 125 };
    expect(machineScale(budget, new Map(Object.entries(m)))).toBe(2.5);
    const slow = verdicts(m);
    expect(slow.inspect_ms!.limit).toBe(2500);
    expect([slow.inspect_ms!.ok, slow.read_mb_s!.ok]).toEqual([true, true]);
    const regressed = verdicts({ ...m, inspect_ms: 2600, read_mb_s: 110 });
    expect([regressed.inspect_ms!.ok, regressed.read_mb_s!.ok]).toEqual([false, false]);
  });

  it('a faster machine keeps the plain limit; an unmeasured scale counts as 1; a figure not printed fails', () => {
    expect(machineScale(budget, new Map([['startup.node_ms', 30]]))).toBe(1);
    expect(machineScale(budget, new Map())).toBeNull();
    const none = verdicts({ read_mb_s: 400 });
    expect(none.inspect_ms!.ok).toBe(false);
    expect(none.inspect_ms!.value).toBeNull();
    expect(none.read_mb_s!.limit).toBe(300);
  });
});
