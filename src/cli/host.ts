// Builds the headless host: a Workspace with the real readers, its handlers and the serve server.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createHandlers } from '../core/api/handlers';
import { startServer, type RunningServer } from '../core/server/serve';
import { newToken } from '../core/server/token';
import { createWorkspace } from '../core/workspace/create';
import type { Workspace } from '../core/workspace/workspace';
import { appVersion, rendererDir } from './paths';
import { UsageError } from './usage';

export interface ServeHost {
  workspace: Workspace;
  server: RunningServer;
  close(): Promise<void>;
}

export async function serveFolder(
  dir: string,
  opts: { host?: string; port?: number; poll?: boolean },
): Promise<ServeHost> {
  if (!existsSync(join(rendererDir, 'index.html'))) {
    throw new UsageError(`the UI is not built (${rendererDir} is missing): run 'npm run build:app' first`);
  }
  const workspace = createWorkspace({ usePolling: opts.poll ?? false });
  await workspace.open(dir);
  const handlers = createHandlers(workspace, {
    mode: 'serve',
    version: appVersion(),
    allowOpenFolder: false,
  });
  const server = await startServer({
    workspace,
    handlers,
    rendererDir,
    token: newToken(),
    ...(opts.host !== undefined ? { host: opts.host } : {}),
    ...(opts.port !== undefined ? { port: opts.port } : {}),
  });
  return {
    workspace,
    server,
    close: async () => {
      await server.close();
      await workspace.close();
    },
  };
}
