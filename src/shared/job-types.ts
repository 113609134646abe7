// A job: one training run spread over several nodes (endpoints), as one entry with its nodes and cross-node findings.

import type { Severity } from './domain';
import { UNSAFE_CHAR } from './control-chars';

/** Longest job or node name an agent takes (`--job`, `--node`). */
export const JOB_NAME_MAX = 128;

/** Why a job or node name is refused (null when it is fine): empty, too long, or holding control characters. */
export function jobNameProblem(name: string): string | null {
  if (name.trim().length === 0) return 'is empty';
  if (name.length > JOB_NAME_MAX) return `is longer than ${JOB_NAME_MAX} characters`;
  if (UNSAFE_CHAR.test(name)) return 'holds control or bidi-override characters';
  return null;
}

/** Where a node stands against the others of its job (the worst finding wins). */
export type JobNodeState =
  /** Wrote within the silent-after window. */
  | 'moving'
  /** Stopped writing while other nodes of its job moved, its agent answering (the usual NCCL hang, a frozen trainer). */
  | 'silent'
  /** Stopped writing while other nodes of its job moved, and its agent saw its trainer process exit (killed, crashed). */
  | 'exited'
  /** Its endpoint (agent) does not answer: whether it still writes is unknown. */
  | 'unreachable'
  /** Behind the job's leading node by more than the step-skew bound. */
  | 'straggler'
  /** Its GPUs idle while the other nodes' GPUs work. */
  | 'gpus-idle'
  /** Its run finished (its files say so). */
  | 'finished'
  /** Nothing written yet, or it stopped along with the rest of its job (no node still writes at its own rhythm):
   * the run-level stall rule speaks. Never a stop between moving and silent while other nodes write. */
  | 'quiet';

/** A node's state in words, the same in the window and in `watch`. */
export const JOB_NODE_STATE_LABELS: Record<JobNodeState, string> = {
  moving: 'moving',
  silent: 'silent',
  exited: 'exited',
  unreachable: 'agent unreachable',
  straggler: 'straggler',
  'gpus-idle': 'GPUs idle',
  finished: 'finished',
  quiet: 'quiet',
};

export interface JobNode {
  /** The node's name: its agent's `--node` (default: its host name), else the endpoint's host label. */
  node: string;
  /** The endpoint it comes from (its host label); null for this app's own folder. */
  host: string | null;
  /** The run key standing for the node in the job (its newest run in the job). */
  run: string;
  /** The newest step of its current session; null before any point. */
  step: number | null;
  /** ms since epoch of its newest write (point wall time or file mtime); null before any. */
  lastWriteAt: number | null;
  /** Whether its endpoint is connected now (always true for the local folder). */
  connected: boolean;
  /** Mean GPU utilisation (%) of its newest fresh system sample; null without one (no GPU, not sampled). */
  gpuUtilPct: number | null;
  state: JobNodeState;
  /** Worst active alert of its run or of the job's rules about it. */
  worstAlert: Severity | null;
}

export interface JobInfo {
  /** The job's name: the agents' `--job`, else the run name its nodes share. */
  name: string;
  /** `named`: the agents said `--job NAME`; `run-name`: the same run name on two or more endpoints. */
  grouping: 'named' | 'run-name';
  /** In node-name order. */
  nodes: JobNode[];
  /** Smallest and largest step of its unfinished nodes with points (null when none). */
  stepMin: number | null;
  stepMax: number | null;
  /** Worst active alert over its nodes and the job's rules. */
  worstAlert: Severity | null;
}

/** The cross-node rules (the `rule` of their alerts). */
export const JOB_RULES = [
  'job-node-silent',
  'job-node-exited',
  'job-agent-unreachable',
  'job-step-skew',
  'job-node-gpus-idle',
] as const;
export type JobRule = (typeof JOB_RULES)[number];

/** Prefix of every job alert's id: app routes ack/snooze of these to the job monitor. */
export const JOB_ALERT_PREFIX = 'job:';
