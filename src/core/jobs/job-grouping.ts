// Which runs form a job: the agents' `--job NAME`, else one run name on several endpoints started together.

import type { RunInfo } from '../../shared/domain';
import { splitRunKey } from '../../shared/run-key';

/** One node of a job: the run standing for it (its newest in the job). */
export interface JobMember {
  node: string;
  host: string | null;
  run: RunInfo;
}

export interface JobGroup {
  name: string;
  grouping: 'named' | 'run-name';
  /** In node-name order. */
  members: JobMember[];
}

/** Runs of one name on several endpoints are one job only when their current sessions began within this much
 * of each other: two unrelated runs that happen to share a name ("ppo") are not a job. */
export const STARTED_TOGETHER_MS = 15 * 60_000;

/** Most jobs shown (those with most nodes first): a remote that names a job per run cannot flood the list. */
export const MAX_JOBS = 256;

/** The local folder's node name when its runs carry none. */
export const LOCAL_NODE = 'this machine';

/** ms since epoch of a run's newest write: its newest point's wall time or its newest file's mtime. */
export function lastWriteOf(r: RunInfo): number | null {
  const t = Math.max(r.lastEventAt ?? -Infinity, r.fileWrittenAt ?? -Infinity);
  return Number.isFinite(t) ? t : null;
}

/** ms since epoch when its current session began (its first point's wall time), null when unknown. */
function sessionStart(r: RunInfo): number | null {
  const s = r.sessions[r.sessions.length - 1];
  return s && s.startWall !== null && Number.isFinite(s.startWall) ? s.startWall * 1000 : null;
}

const nodeOf = (r: RunInfo, host: string | null): string => r.node ?? host ?? LOCAL_NODE;

/** The newer of two runs of a node (newest write; ties keep the first). */
const newer = (a: RunInfo, b: RunInfo): RunInfo =>
  (lastWriteOf(b) ?? -Infinity) > (lastWriteOf(a) ?? -Infinity) ? b : a;

/** A node is an endpoint and the node name its runs give: two endpoints giving one name stay two nodes. */
const nodeKey = (r: RunInfo, host: string | null): string => `${host ?? ''}\u0000${nodeOf(r, host)}`;

type Nodes = Map<string, { host: string | null; run: RunInfo }>;

/** The members in node order; a node name that two endpoints give is told apart by the endpoint. */
function membersOf(nodes: Nodes): JobMember[] {
  const names = new Map<string, number>();
  for (const m of nodes.values())
    names.set(nodeOf(m.run, m.host), (names.get(nodeOf(m.run, m.host)) ?? 0) + 1);
  return [...nodes.values()]
    .map((m) => {
      const node = nodeOf(m.run, m.host);
      return {
        node: names.get(node)! > 1 && m.host !== null ? `${node} (${m.host})` : node,
        host: m.host,
        run: m.run,
      };
    })
    .sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
}

/** The jobs among `runs`, by name. A run with `job` belongs to that job (one run per node: its newest); runs without
 * one, of the same name on two or more endpoints (this folder counts as one) whose sessions began within
 * STARTED_TOGETHER_MS, form a job named by that run name. A job needs two nodes or an explicit name. */
export function groupJobs(runs: readonly RunInfo[]): JobGroup[] {
  const named = new Map<string, Nodes>();
  const byName = new Map<string, { host: string | null; run: RunInfo; start: number }[]>();
  for (const r of runs) {
    const { host, run: name } = splitRunKey(r.run);
    if (r.job !== undefined) {
      let nodes = named.get(r.job);
      if (!nodes) named.set(r.job, (nodes = new Map()));
      const key = nodeKey(r, host);
      const had = nodes.get(key);
      nodes.set(key, { host, run: had ? newer(had.run, r) : r });
      continue;
    }
    const start = sessionStart(r);
    if (start === null) continue;
    let list = byName.get(name);
    if (!list) byName.set(name, (list = []));
    list.push({ host, run: r, start });
  }
  const jobs: JobGroup[] = [...named.entries()].map(([name, nodes]) => ({
    name,
    grouping: 'named',
    members: membersOf(nodes),
  }));
  for (const [name, list] of byName) {
    if (named.has(name)) continue;
    const first = Math.min(...list.map((m) => m.start));
    const nodes: Nodes = new Map();
    for (const m of list)
      if (m.start - first <= STARTED_TOGETHER_MS)
        nodes.set(nodeKey(m.run, m.host), { host: m.host, run: m.run });
    const hosts = new Set([...nodes.values()].map((m) => m.host));
    if (hosts.size >= 2) jobs.push({ name, grouping: 'run-name', members: membersOf(nodes) });
  }
  const kept =
    jobs.length <= MAX_JOBS
      ? jobs
      : jobs.sort((a, b) => b.members.length - a.members.length).slice(0, MAX_JOBS);
  return kept.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
