// What the Prometheus exposition reads from an AppCore on each scrape (AppCore satisfies it; tests pass stand-ins).

import type { AlertInfo, RunInfo } from '../../shared/domain';
import type { SystemSnapshot } from '../../shared/system-types';
import type { JobIdentity } from '../app/run-overlay';
import type { LastPoint } from '../app/tag-tracker';
import type { ThresholdName } from '../health';

export type { LastPoint };

export interface MetricsSource {
  /** The open folder's runs, with freshness, progress, end and the alert overlay. */
  runs(): RunInfo[];
  /** Every tag's last point in a run. */
  lastPoints(run: string): ReadonlyMap<string, LastPoint>;
  /** The alerts active now (the machine pseudo-run's included). */
  activeAlerts(): AlertInfo[];
  /** The threshold values the engine applies to a run, by name (`target_kl`…). */
  thresholdValues(run: string): Readonly<Partial<Record<ThresholdName, number>>>;
  /** The newest system sample, null before the first. */
  latestSystemSample(): SystemSnapshot | null;
  /** The job and node this agent's folder belongs to (`agent --job`); null or absent when none was given. */
  readonly identity?: JobIdentity | null;
}
