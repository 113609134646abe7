// The run list's job entries (pure): a job's summary line, its dot, each node's state label and line, the filter.

import {
  JOB_NODE_STATE_LABELS,
  type JobInfo,
  type JobNode,
  type JobNodeState,
} from '../../../shared/job-types';
import { LIVE_WINDOW_MS, STATUS_LABELS, type RunStatus } from '../../../shared/run-status';
import { formatAgo, formatPct } from './format';
import { filterRuns } from './run-filter';

/** A node's state as the list words it (shown as text beside its colour, never colour alone). */
export { JOB_NODE_STATE_LABELS as NODE_STATE_LABELS } from '../../../shared/job-types';

/** What each state means, for the label's tooltip. */
export const NODE_STATE_HINTS: Record<JobNodeState, string> = {
  moving: 'writing, in step with the other nodes',
  silent:
    'has written nothing for a while as the other nodes kept writing, its agent answering (a hang, a frozen trainer)',
  exited: 'its trainer process exited (its agent saw it end) while the other nodes kept writing',
  unreachable: 'its agent does not answer: whether it still writes is unknown',
  straggler: "behind the job's leading node by more than the step-skew bound",
  'gpus-idle': "its GPUs idle while the other nodes' GPUs work",
  finished: 'its run finished',
  quiet: 'nothing written yet, or it stopped along with the rest of the job (each run shows its own stall)',
};

/** States worth drawing the eye to (the others are the normal course of a job). */
export const nodeStateIsProblem = (s: JobNodeState): boolean =>
  s === 'silent' || s === 'exited' || s === 'unreachable' || s === 'straggler' || s === 'gpus-idle';

/** "1200–1510", "1510" when the nodes agree, "no steps yet" before any point. */
export function stepRange(min: number | null, max: number | null): string {
  if (min === null || max === null) return 'no steps yet';
  return min === max ? `step ${min}` : `steps ${min}–${max}`;
}

/** "3 nodes · steps 1200–1510". */
export function jobSummary(job: JobInfo): string {
  const n = job.nodes.length;
  return `${n} node${n === 1 ? '' : 's'} · ${stepRange(job.stepMin, job.stepMax)}`;
}

/** "1 silent, 1 straggler" over the nodes in a problem state; null when there is none. */
export function jobProblems(job: JobInfo): string | null {
  const counts = new Map<JobNodeState, number>();
  for (const n of job.nodes)
    if (nodeStateIsProblem(n.state)) counts.set(n.state, (counts.get(n.state) ?? 0) + 1);
  if (counts.size === 0) return null;
  return [...counts].map(([s, c]) => `${c} ${JOB_NODE_STATE_LABELS[s]}`).join(', ');
}

/** The job's dot: its worst alert, else finished when every node is, live when one wrote lately, else idle. */
export function jobStatus(job: JobInfo, now: number): RunStatus {
  if (job.worstAlert) return job.worstAlert;
  if (job.nodes.length > 0 && job.nodes.every((n) => n.state === 'finished')) return 'finished';
  const live = job.nodes.some((n) => n.lastWriteAt !== null && now - n.lastWriteAt < LIVE_WINDOW_MS);
  return live ? 'live' : 'idle';
}

/** The dot's words (its aria-label and title). */
export const jobStatusLabel = (job: JobInfo, now: number): string => STATUS_LABELS[jobStatus(job, now)];

/** Where a node runs and its GPUs: "127.0.0.1:7071 · GPU 87 %" (the host left out where it is the node's name), or
 * "127.0.0.1:7071 · not connected" while its endpoint is away (its GPUs unknown then). */
export function nodeWhere(n: JobNode): string {
  const parts = [n.host === null ? 'this machine' : n.host];
  if (parts[0] === n.node) parts.pop();
  parts.push(n.connected ? `GPU ${formatPct(n.gpuUtilPct)}` : 'not connected');
  return parts.join(' · ');
}

/** How far a node got: "step 1510 · last write 3 min ago". */
export function nodeProgress(n: JobNode, now: number): string {
  return `${n.step === null ? 'no steps yet' : `step ${n.step}`} · last write ${formatAgo(n.lastWriteAt, now)}`;
}

/** The runs a job's entry overlays: each node's run once, in node order. */
export const jobRuns = (job: JobInfo): string[] => [...new Set(job.nodes.map((n) => n.run))];

/** Whether the charts show exactly this job's runs (the selected one and the overlaid ones). */
export function showsJob(job: JobInfo, chartRuns: readonly string[]): boolean {
  const runs = jobRuns(job);
  return runs.length === chartRuns.length && runs.every((r) => chartRuns.includes(r));
}

/** The jobs the run filter keeps: every typed word in the job's name, or in one node's name, host or run. */
export function filterJobs(jobs: readonly JobInfo[], text: string): JobInfo[] {
  if (text.trim() === '') return [...jobs];
  return jobs.filter(
    (j) =>
      filterRuns([{ run: j.name }], text).length > 0 ||
      j.nodes.some((n) => filterRuns([{ run: `${n.node} ${n.host ?? ''} ${n.run}` }], text).length > 0),
  );
}
