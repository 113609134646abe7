// RLWATCH_JOB_SILENT_AFTER_MS read once for every command that judges jobs (`serve`, `agent`, `watch --remote`).

import { UsageError } from './usage';

/** RLWATCH_JOB_SILENT_AFTER_MS: a test knob (the e2e freezes a node for seconds, not minutes), like RLWATCH_STORE=memory:
 * how long a node of a job may write nothing while the others write before it is silent (default 120 s).
 * 1000 to 86 400 000 ms as digits; anything else is a usage error, never silently the default. */
export function jobRulesFromEnv(value: string | undefined): { jobRules?: { silentAfterMs: number } } {
  if (value === undefined || value === '') return {};
  const ms = /^\d{1,9}$/.test(value) ? Number(value) : NaN;
  if (!(ms >= 1000 && ms <= 86_400_000))
    throw new UsageError(
      'RLWATCH_JOB_SILENT_AFTER_MS must be a whole number of milliseconds from 1000 to 86400000',
    );
  return { jobRules: { silentAfterMs: ms } };
}
