// The app's jobs: the job monitor over the one run list, each node's facts from its endpoint or this machine.

import type { AlertChange, RunInfo } from '../../shared/domain';
import type { JobInfo } from '../../shared/job-types';
import { localNodeFacts } from '../../shared/node-facts';
import type { SystemSnapshot } from '../../shared/system-types';
import { JobMonitor } from '../jobs/job-monitor';
import type { JobRuleOptions } from '../jobs/job-rules';
import type { RemoteHub } from '../remote/remote-hub';

export interface AppJobsWiring {
  clock: () => number;
  rules?: Partial<JobRuleOptions>;
  runs(): RunInfo[];
  remotes: RemoteHub;
  /** This machine's newest system sample (the local folder's node). */
  localSample(): SystemSnapshot | null;
  jobsChanged(jobs: JobInfo[]): void;
  alertChanged(change: AlertChange): void;
  /** Whether this folder's runs carry a job (`--job`): without it and without endpoints there is no job. */
  named: boolean;
  /** Judged this often besides on changes (a node falls silent without any event saying so; default 5 s). */
  everyMs?: number;
}

export interface AppJobs {
  monitor: JobMonitor;
  /** Judge the jobs again now (run-list and endpoint changes call it; a timer does every `everyMs`). */
  refresh(): void;
  stop(): void;
}

export function createAppJobs(w: AppJobsWiring): AppJobs {
  const monitor = new JobMonitor({
    clock: w.clock,
    rules: w.rules,
    jobsChanged: w.jobsChanged,
    alertChanged: w.alertChanged,
  });
  const refresh = (): void => {
    // A job needs two endpoints, or an explicit name: a lone local folder (10k runs, say) is never walked for one.
    const possible = w.named || w.remotes.list().length > 0;
    if (!possible && monitor.jobs().length === 0 && monitor.activeAlerts().length === 0) return;
    monitor.update(possible ? w.runs() : [], (m) =>
      m.host === null ? localNodeFacts(w.localSample(), w.clock()) : w.remotes.nodeFacts(m.host),
    );
  };
  const timer = setInterval(refresh, w.everyMs ?? 5000);
  timer.unref();
  return { monitor, refresh, stop: () => clearInterval(timer) };
}
