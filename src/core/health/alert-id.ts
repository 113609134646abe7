// Alert ids and stream keys: the one place that builds an incident's key and parses it back (total on client input).

import { RULE_IDS, type RuleId } from './types';

/** What an alert id names: one incident — run, rule, quantity (a metric role or tag; null for run-level rules) and
 * the step it began at. Replaying a run reproduces the same ids, so history never holds two copies of one incident. */
export interface AlertKey {
  run: string;
  rule: RuleId;
  quantity: string | null;
  onsetStep: number;
}

const KNOWN_RULES: ReadonlySet<string> = new Set(RULE_IDS);

/** The stable id of one incident. */
export const alertId = (run: string, rule: RuleId, quantity: string | null, onsetStep: number): string =>
  JSON.stringify([run, rule, quantity, Number.isFinite(onsetStep) ? onsetStep : null]);

/** The stream an incident belongs to: one per run + rule + quantity. Snoozes and hysteresis live on it; each of
 * its incidents has its own id. */
export const streamKey = (run: string, rule: RuleId, quantity: string | null): string =>
  JSON.stringify([run, rule, quantity]);

/** The key an id was built from; null for anything else (ids arrive from clients on ack/snooze). */
export function parseAlertId(id: string): AlertKey | null {
  let v: unknown;
  try {
    v = JSON.parse(id);
  } catch {
    return null;
  }
  if (!Array.isArray(v) || v.length !== 4) return null;
  const [run, rule, quantity, onset] = v as unknown[];
  if (typeof run !== 'string' || typeof rule !== 'string' || !KNOWN_RULES.has(rule)) return null;
  if (quantity !== null && typeof quantity !== 'string') return null;
  if (onset !== null && (typeof onset !== 'number' || !Number.isFinite(onset))) return null;
  return { run, rule: rule as RuleId, quantity, onsetStep: onset ?? Number.NaN };
}
