// The contract's request handlers over one Workspace; the host (Electron main or serve) adds what only it can do.

import type { AppInfo } from '../../shared/domain';
import type { Workspace } from '../workspace/workspace';
import { ApiError, type Handlers } from './dispatch';

export interface HostCapabilities {
  mode: AppInfo['mode'];
  version: string;
  /** Native folder picker (Electron only). */
  chooseFolder?: () => Promise<string | null>;
  /** Whether the renderer may open arbitrary folders (not in serve mode, where the browser is remote). */
  allowOpenFolder: boolean;
}

const unwired = (): never => {
  throw new ApiError('unavailable', 'not wired yet');
};

export function createHandlers(ws: Workspace, host: HostCapabilities): Handlers {
  const openFolder = async (path: string): Promise<{ root: string }> => {
    try {
      await ws.open(path);
    } catch (err) {
      throw new ApiError('io', `cannot open ${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
    return { root: ws.root ?? path };
  };
  return {
    'app.info': () => ({
      version: host.version,
      mode: host.mode,
      root: ws.root,
      canChooseFolder: host.chooseFolder !== undefined,
      store: { persistent: false, message: 'not wired yet' },
      watch: { polling: false, suggestion: null },
    }),
    'runs.list': () => ws.listRuns(),
    'runs.openFolder': ({ path }) => {
      if (!host.allowOpenFolder)
        throw new ApiError('unavailable', 'opening other folders is disabled in serve mode');
      return openFolder(path);
    },
    'runs.chooseFolder': async () => {
      if (!host.chooseFolder) throw new ApiError('unavailable', 'no folder picker in this mode');
      const picked = await host.chooseFolder();
      return picked === null ? null : openFolder(picked);
    },
    'series.get': ({ run, tag, ...q }) => {
      const w = ws.getWindow(run, tag, q);
      if (!w) throw new ApiError('not-found', `no series ${tag} in run ${run}`);
      return w;
    },
    'app.visibility': () => null,
    'runs.recent': () => [],
    'runs.details': () => unwired(),
    'runs.saveView': () => null,
    'alerts.list': () => [],
    'alerts.ack': () => unwired(),
    'alerts.snooze': () => unwired(),
    'system.history': () => [],
    'settings.get': () => unwired(),
    'settings.set': () => unwired(),
  };
}
