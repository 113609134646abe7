// `--job NAME [--node NAME]` of agent and serve: the job this node's runs belong to, checked as a usage error.

import { hostname } from 'node:os';
import type { JobIdentity } from '../core/app/run-overlay';
import { jobNameProblem } from '../shared/job-types';
import { UsageError } from './usage';

export const JOB_FLAGS = {
  job: { type: 'string' },
  node: { type: 'string' },
} as const;

/** The identity the flags give (the node defaults to this host's name); undefined without `--job`. */
export function jobIdentity(
  values: { job?: unknown; node?: unknown },
  host = hostname(),
): JobIdentity | undefined {
  const job = values.job as string | undefined;
  const node = values.node as string | undefined;
  if (job === undefined) {
    if (node !== undefined) throw new UsageError('--node names this node of a job: give --job NAME too');
    return undefined;
  }
  for (const [flag, name] of [
    ['--job', job],
    ['--node', node],
  ] as const) {
    const problem = name === undefined ? null : jobNameProblem(name);
    if (problem !== null) throw new UsageError(`${flag} ${problem}`);
  }
  return { job, node: node ?? host };
}
