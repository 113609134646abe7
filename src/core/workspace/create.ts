// Wires the format registry and run discovery into a Workspace.

import { discoverRuns } from '../discovery';
import { createSource } from '../sources/registry';
import type { CapSetting } from '../series/memory-cap';
import type { Discover, Discovery } from './ports';
import { Workspace } from './workspace';

export const discover: Discover = (root, keep, localDisk, early) =>
  discoverRuns(root, {
    ...(keep ? { keep } : {}),
    ...(localDisk ? { localDisk } : {}),
    ...(early ? { early } : {}),
  });

export function createWorkspace(opts: {
  usePolling?: boolean;
  watch?: boolean;
  sweepMs?: number;
  /** Only the runs this says yes to (by name) are read: a replay of one run reads no other. Default all. */
  runs?: (run: string) => boolean;
  /** The memory cap on stored points (default: RLWATCH_MEMORY_CAP_MB, else min(2 GB, a quarter of the memory)). */
  memoryCap?: CapSetting;
}): Workspace {
  const { runs: only, ...rest } = opts;
  const find: Discover = only
    ? async (root, keep, localDisk, early) => {
        const picked = early && {
          count: early.count,
          found: (runs: Discovery['runs']) => early.found(runs.filter((r) => only(r.run))),
        };
        const found = await discover(root, keep, localDisk, picked);
        return { ...found, runs: found.runs.filter((r) => only(r.run)) };
      }
    : discover;
  // RLWATCH_WATCHER=chokidar: chokidar even where plain fs.watch would follow the folder (a way back, and A/B benches).
  const watcher = process.env.RLWATCH_WATCHER === 'chokidar' ? { watcher: 'chokidar' as const } : {};
  return new Workspace({ discover: find, createSource, ...watcher, ...rest });
}
