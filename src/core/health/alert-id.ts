// Alert ids: the one place that builds the run+rule+tag key and parses it back (total on client input).

import { RULE_IDS, type RuleId } from './types';

/** What an alert id names: one incident stream per run, rule and tag (null for run-level rules). */
export interface AlertKey {
  run: string;
  rule: RuleId;
  tag: string | null;
}

const KNOWN_RULES: ReadonlySet<string> = new Set(RULE_IDS);

/** The stable id of run+rule+tag: dedup, acknowledge and snooze address alerts by it. */
export const alertId = (run: string, rule: RuleId, tag: string | null): string =>
  JSON.stringify([run, rule, tag]);

/** The key an id was built from; null for anything else (ids arrive from clients on ack/snooze). */
export function parseAlertId(id: string): AlertKey | null {
  let v: unknown;
  try {
    v = JSON.parse(id);
  } catch {
    return null;
  }
  if (!Array.isArray(v) || v.length !== 3) return null;
  const [run, rule, tag] = v as unknown[];
  if (typeof run !== 'string' || typeof rule !== 'string' || !KNOWN_RULES.has(rule)) return null;
  if (tag !== null && typeof tag !== 'string') return null;
  return { run, rule: rule as RuleId, tag };
}
