// `watch --remote`: follows other rlwatch endpoints and the jobs across them as watch lines (runs, alerts, links, jobs).

import type { AlertChange, EndpointInfo, RunInfo } from '../../shared/domain';
import type { JobInfo } from '../../shared/job-types';
import { localNodeFacts } from '../../shared/node-facts';
import type { SystemSnapshot } from '../../shared/system-types';
import { JobMonitor } from '../jobs/job-monitor';
import type { JobRuleOptions } from '../jobs/job-rules';
import type { LinkTuning } from '../remote/remote-endpoint';
import { RemoteHub } from '../remote/remote-hub';
import { alertChangeLine, jobLine, RunTracker, type WatchLine } from './watch-lines';

export interface WatchRemotesOptions {
  /** The endpoints' URLs as they printed them (token included). */
  urls: readonly string[];
  emit(line: WatchLine): void;
  /** The local folder's runs (a node of a job too), empty without one. */
  localRuns?: () => readonly RunInfo[];
  /** This machine's newest system sample (the local node's GPUs). */
  localSample?: () => SystemSnapshot | null;
  now?: () => number;
  /** How often the job rules are judged besides on changes (default 5 s). */
  tickMs?: number;
  jobRules?: Partial<JobRuleOptions>;
  tuning?: LinkTuning;
}

/** Which of a job's changes make a line: membership, node states, connections and the worst alert, never a step. */
const shapeOf = (j: JobInfo): string =>
  JSON.stringify([j.worstAlert, j.nodes.map((n) => [n.node, n.host, n.run, n.state, n.connected])]);

export class WatchRemotes {
  private readonly hub: RemoteHub;
  private readonly jobs: JobMonitor;
  private readonly runs = new RunTracker();
  private readonly states = new Map<string, string>();
  private readonly shapes = new Map<string, string>();
  private readonly now: () => number;
  private readonly timer: NodeJS.Timeout;
  private readonly onAlert: (c: AlertChange) => void;

  constructor(private readonly o: WatchRemotesOptions) {
    this.now = o.now ?? Date.now;
    this.onAlert = (c) => {
      const line = alertChangeLine(c, this.now());
      if (line) o.emit(line);
    };
    this.jobs = new JobMonitor({
      clock: this.now,
      rules: o.jobRules,
      jobsChanged: (jobs) => this.onJobs(jobs),
      alertChanged: this.onAlert,
    });
    this.hub = new RemoteHub({
      clock: this.now,
      push: (event, payload) => {
        if (event === 'endpoints.changed') this.onEndpoints(payload as EndpointInfo[]);
      },
      runsChanged: () => {
        for (const line of this.runs.diff(this.hub.runs() as RunInfo[], this.now())) o.emit(line);
        this.refresh();
      },
      alertChanged: this.onAlert,
      // watch never saves anything.
      save: () => {},
      ...(o.tuning ? { tuning: o.tuning } : {}),
    });
    for (const url of o.urls) this.hub.add(url, { sessionOnly: true });
    this.timer = setInterval(() => this.refresh(), o.tickMs ?? 5000);
    this.timer.unref();
  }

  /** Judges the jobs now (the local folder's runs with the endpoints'). */
  refresh(): void {
    const runs = [...(this.o.localRuns?.() ?? []), ...this.hub.runs()];
    this.jobs.update(runs, (m) =>
      m.host === null
        ? localNodeFacts(this.o.localSample?.() ?? null, this.now())
        : this.hub.nodeFacts(m.host),
    );
  }

  close(): void {
    clearInterval(this.timer);
    this.hub.dispose();
  }

  private onEndpoints(list: EndpointInfo[]): void {
    for (const e of list) {
      const key = `${e.state}|${e.error ?? ''}`;
      if (this.states.get(e.id) === key) continue;
      this.states.set(e.id, key);
      this.o.emit({ t: this.now(), type: 'endpoint', endpoint: e.id, state: e.state, error: e.error });
    }
    this.refresh();
  }

  private onJobs(jobs: JobInfo[]): void {
    const t = this.now();
    for (const j of jobs) {
      const shape = shapeOf(j);
      if (this.shapes.get(j.name) === shape) continue;
      this.shapes.set(j.name, shape);
      this.o.emit(jobLine(j, t));
    }
  }
}
