// What the job rules know of a node besides its run: its endpoint's link, its GPUs' mean utilisation when fresh.

import type { SystemSnapshot } from './system-types';

export interface NodeFacts {
  connected: boolean;
  /** ms since epoch when its endpoint stopped answering (the link went down); absent or null while connected. */
  awaySince?: number | null;
  /** Mean GPU utilisation (%) of its newest fresh sample; null without one. */
  gpuUtilPct: number | null;
}

/** A node's GPU figures older than this say nothing about now. */
export const GPU_FRESH_MS = 30_000;

/** The mean of a node's GPU utilisations (%), null when it gives none. */
export function meanGpuUtilisation(pcts: readonly (number | null)[]): number | null {
  const xs = pcts.filter((p): p is number => p !== null && Number.isFinite(p));
  return xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** This machine as a node: always connected, its GPUs from its newest sample when fresh and not stale. */
export function localNodeFacts(sample: SystemSnapshot | null, now: number): NodeFacts {
  const fresh = sample !== null && !sample.gpusStale && now - sample.t <= GPU_FRESH_MS;
  return {
    connected: true,
    gpuUtilPct: fresh ? meanGpuUtilisation((sample.gpus ?? []).map((g) => g.utilizationGpuPct)) : null,
  };
}
