// Each run's RunInfo, kept until the run's revision moves or a structure change clears them all.

import type { RunInfo } from '../../shared/domain';
import { runInfo } from './run-info';
import type { RunState } from './run-state';

/** A paced runs.changed after one run's append builds that run's info, not every run's (with 50 live runs, 2–10
 * lists a second each built all 50: ~6 % of `watch`'s busy time, #36). */
export class RunInfoCache {
  private kept = new WeakMap<RunState, { revision: number; info: RunInfo }>();

  of(state: RunState): RunInfo {
    const k = this.kept.get(state);
    if (k && k.revision === state.revision) return k.info;
    const info = runInfo(state);
    this.kept.set(state, { revision: state.revision, info });
    return info;
  }

  /** Any run's info may have moved (a structure change, memory thinning): each is built again when next asked. */
  clear(): void {
    this.kept = new WeakMap();
  }
}
