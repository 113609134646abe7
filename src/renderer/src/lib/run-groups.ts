// The run list grouped by host (local runs first), each run with its index in the flat list and its own name.

import type { EndpointInfo, RunInfo } from '../../../shared/domain';
import { formatAgo } from './format';

export interface RunGroup {
  /** null for this machine's runs. */
  host: string | null;
  runs: { run: RunInfo; index: number }[];
}

/** Consecutive runs of one host form a group; the core lists local runs, then each endpoint's. */
export function groupByHost(runs: readonly RunInfo[]): RunGroup[] {
  const groups: RunGroup[] = [];
  runs.forEach((run, index) => {
    const host = run.host ?? null;
    const last = groups[groups.length - 1];
    if (last && last.host === host) last.runs.push({ run, index });
    else groups.push({ host, runs: [{ run, index }] });
  });
  return groups;
}

/** What a host group's header says about its link: null while connected. */
export function linkNote(e: EndpointInfo | undefined, now: number): string | null {
  if (!e || e.state === 'connected') return null;
  if (e.state === 'connecting') return 'connecting…';
  if (e.state === 'auth-failed') return `token refused ${formatAgo(e.since, now)}`;
  return `disconnected ${formatAgo(e.since, now)}`;
}
