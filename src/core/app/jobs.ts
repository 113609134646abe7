// The app's jobs: the job monitor over the one run list, with each node's facts from its endpoint or this machine.

import type { AlertChange, RunInfo } from '../../shared/domain';
import type { JobInfo } from '../../shared/job-types';
import type { SystemSnapshot } from '../../shared/system-types';
import { JobMonitor } from '../jobs/job-monitor';
import { meanGpuUtilisation, type JobRuleOptions, type NodeFacts } from '../jobs/job-rules';
import type { RemoteHub } from '../remote/remote-hub';

/** A node's GPU figures older than this say nothing about now. */
const GPU_FRESH_MS = 30_000;

export interface AppJobsWiring {
  clock: () => number;
  rules?: Partial<JobRuleOptions>;
  runs(): RunInfo[];
  remotes: RemoteHub;
  /** This machine's newest system sample (the local folder's node). */
  localSample(): SystemSnapshot | null;
  jobsChanged(jobs: JobInfo[]): void;
  alertChanged(change: AlertChange): void;
}

export interface AppJobs {
  monitor: JobMonitor;
  /** Judge the jobs again now (run-list and endpoint changes call it; a timer does every `everyMs`). */
  refresh(): void;
  stop(): void;
}

/** The monitor, judged on changes and every `everyMs` (a node falls silent without any event saying so). */
export function createAppJobs(w: AppJobsWiring & { everyMs?: number }): AppJobs {
  const monitor = new JobMonitor({
    clock: w.clock,
    rules: w.rules,
    jobsChanged: w.jobsChanged,
    alertChanged: w.alertChanged,
  });
  const facts = (host: string | null): NodeFacts => {
    if (host === null) {
      const s = w.localSample();
      const fresh = s !== null && !s.gpusStale && w.clock() - s.t <= GPU_FRESH_MS;
      return {
        connected: true,
        gpuUtilPct: fresh ? meanGpuUtilisation((s.gpus ?? []).map((g) => g.utilizationGpuPct)) : null,
      };
    }
    const f = w.remotes.nodeFacts(host, GPU_FRESH_MS);
    return { connected: f.connected, gpuUtilPct: meanGpuUtilisation(f.gpuUtilisation ?? []) };
  };
  const refresh = (): void => monitor.update(w.runs(), (m) => facts(m.host));
  const timer = setInterval(refresh, w.everyMs ?? 5000);
  timer.unref();
  return { monitor, refresh, stop: () => clearInterval(timer) };
}
