// Wires the format registry and run discovery into a Workspace.

import { discoverRuns } from '../discovery';
import { createSource } from '../sources/registry';
import type { Discover } from './ports';
import { Workspace } from './workspace';

export const discover: Discover = (root) => discoverRuns(root);

export function createWorkspace(opts: {
  usePolling?: boolean;
  watch?: boolean;
  sweepMs?: number;
}): Workspace {
  return new Workspace({ discover, createSource, ...opts });
}
