// The performance budget's verdicts: each figure against `gate` × its budget, the limit widened by how much slower
// this machine is than the one the budget was set on (node's own start-up then and now).

/**
 * How much slower this machine runs than the one bench/budget.json's figures were set on: the median of `node -e 0`
 * measured now over its median then (`budget.scale.last`), never below 1 (a faster machine keeps the plain limit).
 * Null when the figure was not measured (the startup bench not run).
 */
export function machineScale(budget, measured) {
  const now = budget.scale ? measured.get(budget.scale.key) : undefined;
  if (now === undefined || !Number.isFinite(now) || !(budget.scale.last > 0)) return null;
  return Math.max(1, now / budget.scale.last);
}

/**
 * Each figure's verdict: a time fails above `gate` × budget × scale, a throughput (`better: "higher"`) below
 * budget / (`gate` × scale); a figure not printed fails; one with `"gated": false` is printed, never failed.
 */
export function budgetVerdicts(budget, figures, measured) {
  const scale = machineScale(budget, measured) ?? 1;
  return figures.map((f) => {
    const value = measured.get(f.key);
    const limit = f.better === 'higher' ? f.budget / (budget.gate * scale) : f.budget * budget.gate * scale;
    const within = f.better === 'higher' ? value >= limit : value <= limit;
    const gated = f.gated !== false;
    const ok = value !== undefined && Number.isFinite(value) && (within || !gated);
    return { ...f, value: value ?? null, limit: Number(limit.toPrecision(4)), ok, gated };
  });
}
