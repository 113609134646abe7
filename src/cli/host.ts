// Builds the headless host: an AppCore (workspace, health, store, sampler), its handlers and the serve server.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createHandlers } from '../core/app/handlers';
import { AppCore } from '../core/app/app-core';
import { openAppStore, storePathFromEnv } from '../core/app/app-store';
import { startServer, type RunningServer } from '../core/server/serve';
import { newToken } from '../core/server/token';
import { createSystemSampler } from '../core/system';
import { keepServingOnEscapedErrors } from './last-resort';
import { terminalSafe } from './terminal-text';
import { appVersion, rendererDir } from './paths';
import { UsageError } from './usage';
import { jobRulesFromEnv } from './job-rules-env';
import type { JobIdentity } from '../core/app/run-overlay';

/** How long serve waits for the first run before printing its URL anyway. */
const FIRST_RUN_WAIT_MS = 250;
const delay = <T>(ms: number, value: T): Promise<T> => new Promise((r) => setTimeout(() => r(value), ms));

export interface ServeHost {
  core: AppCore;
  server: RunningServer;
  close(): Promise<void>;
}

/** How /metrics is offered: its own bearer token on the main port, and/or a separate bind. */
export interface MetricsServeOptions {
  token: string | null;
  bind?: { host: string; port: number };
  /** Cardinality bounds (core/metrics' defaults otherwise). */
  limits?: { maxRuns?: number; maxTagsPerRun?: number };
}

export async function serveFolder(
  dir: string,
  opts: {
    host?: string;
    port?: number;
    poll?: boolean;
    /** false: no UI files (`rlwatch agent`), only the API and /metrics. */
    ui?: boolean;
    /** Remote rlwatch endpoints to follow (URL with its token), for this session. */
    remotes?: readonly string[];
    metrics?: MetricsServeOptions;
    /** The job this folder's runs belong to and this node's name (`--job`, `--node`). */
    identity?: JobIdentity;
  },
): Promise<ServeHost> {
  const token = tokenFromEnv(process.env.RLWATCH_TOKEN) ?? newToken();
  const jobRules = jobRulesFromEnv(process.env.RLWATCH_JOB_SILENT_AFTER_MS);
  const ui = opts.ui ?? true;
  if (ui && !existsSync(join(rendererDir, 'index.html'))) {
    throw new UsageError(`the UI is not built (${rendererDir} is missing): run 'npm run build:app' first`);
  }
  // RLWATCH_STORE=memory (tests) or a path; unset: the per-user database the desktop app shares.
  const store = openAppStore({ path: storePathFromEnv() });
  const core = new AppCore({
    host: { mode: 'serve', version: appVersion(), allowOpenFolder: false },
    store,
    createSampler: () => createSystemSampler(),
    remotes: opts.remotes ?? [],
    ...(opts.identity ? { identity: opts.identity } : {}),
    ...jobRules,
    // --poll wins for this session without changing the saved setting.
    ...(opts.poll === true ? { usePolling: true } : {}),
  });
  // The URL is printed once the first run is read, or after FIRST_RUN_WAIT_MS when finding it takes longer
  // (10k run folders: seconds of discovery): the page then shows the load's progress. The rest of a big folder
  // loads behind it.
  const opening = core.open(dir, { until: 'first-run' });
  let opened = false;
  try {
    opened = await Promise.race([opening.then(() => true), delay(FIRST_RUN_WAIT_MS, false)]);
  } catch (err) {
    await core.dispose();
    throw err;
  }
  // A failure after the URL was printed goes to the terminal that started serve (the page shows no runs).
  if (!opened)
    opening.catch((err: unknown) =>
      process.stderr.write(
        `rlwatch: cannot read ${dir}: ${err instanceof Error ? err.message : String(err)}\n`,
      ),
    );
  const handlers = createHandlers(core);
  keepServingOnEscapedErrors();
  const metrics = opts.metrics;
  let server: RunningServer;
  try {
    // prom-client is loaded only when /metrics is asked for.
    const MetricsExposition = metrics ? (await import('../core/metrics/exposition')).MetricsExposition : null;
    server = await startServer({
      bus: core.bus,
      handlers,
      rendererDir: ui ? rendererDir : null,
      token,
      ...(opts.host !== undefined ? { host: opts.host } : {}),
      ...(opts.port !== undefined ? { port: opts.port } : {}),
      ...(metrics && MetricsExposition
        ? {
            metrics: {
              scraper: new MetricsExposition(core, {
                version: appVersion(),
                ...metrics.limits,
                log: (m) => process.stderr.write(`rlwatch: ${terminalSafe(m)}\n`),
              }),
              token: metrics.token,
              ...(metrics.bind ? { bind: metrics.bind } : {}),
            },
          }
        : {}),
    });
  } catch (err) {
    await core.dispose();
    throw err;
  }
  return {
    core,
    server,
    close: async () => {
      await server.close();
      await core.dispose();
    },
  };
}

/** RLWATCH_TOKEN: a fixed token, so a restarted serve keeps its URL (an SSH tunnel, a remote endpoint that
 * reconnects). At least 16 URL-safe characters; anything else is a usage error, never a weak token. */
export function tokenFromEnv(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  if (!/^[A-Za-z0-9_-]{16,256}$/.test(value))
    throw new UsageError('RLWATCH_TOKEN must be 16 to 256 characters of A-Z a-z 0-9 _ -');
  return value;
}
