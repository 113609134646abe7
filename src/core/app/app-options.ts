// What a host (Electron main, serve, tests) gives AppCore: its capabilities, the store, clocks and factories.

import type { AppInfo } from '../../shared/domain';
import type { Store } from '../store';
import type { LinkTuning } from '../remote/remote-endpoint';
import type { WorkspaceFactory } from './folder-session';
import type { SamplerLike } from './system-feed';
import type { JobIdentity } from './run-overlay';
import type { JobRuleOptions } from '../jobs/job-rules';

export interface HostCapabilities {
  mode: AppInfo['mode'];
  version: string;
  /** Native folder picker (Electron only). */
  chooseFolder?: () => Promise<string | null>;
  /** Native folder picker for where exports go (Electron only); starts at `defaultPath` when given. */
  pickExportFolder?: (defaultPath: string | null) => Promise<string | null>;
  /** Whether the renderer may open arbitrary folders (not in serve mode, where the browser is remote). */
  allowOpenFolder: boolean;
}

export interface AppCoreOptions {
  host: HostCapabilities;
  /** An opened store: a ResilientStore (openAppStore) survives IO errors and its fallback becomes an app.notice. */
  store: Store;
  /** ms since epoch; injected for tests. */
  clock?: () => number;
  createWorkspace?: WorkspaceFactory;
  /** The system sampler (createSystemSampler in the hosts); null or absent: no system sampling. */
  createSampler?: () => SamplerLike | null;
  /** Stalled-run checks and notification summaries run this often (default 5 s). */
  tickMs?: number;
  /** System samples are written to the store this often (default 10 s). */
  flushMs?: number;
  /** At most one notification per run per this many ms (default 30 s). */
  notifyWindowMs?: number;
  /** Force polling for this session (serve --poll) whatever the saved setting says. */
  usePolling?: boolean;
  /** Remote endpoint URLs (`serve --remote`) followed for this session only, besides the saved ones. */
  remotes?: readonly string[];
  /** Link timeouts and backoff for remote endpoints (tests shorten them). */
  remoteTuning?: LinkTuning;
  /** The job this folder's runs belong to and this node's name (`agent --job NAME --node N`). */
  identity?: JobIdentity;
  /** The cross-node rules' bounds (tests shorten them). */
  jobRules?: Partial<JobRuleOptions>;
  /** Why the store is not persistent when the host chose that (e.g. no Electron build of SQLite). */
  storeNote?: string | null;
}
