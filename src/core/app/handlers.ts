// The contract's request handlers: thin adapters from validated arguments to the AppCore that owns the state.

import type { Handlers } from '../../shared/contract';
import { ApiError } from '../../shared/result';
import type { AppCore } from './app-core';

export function createHandlers(core: AppCore): Handlers {
  const host = core.host;
  return {
    'app.info': () => core.info(),
    'app.visibility': ({ visible }) => {
      core.setVisible(visible);
      return null;
    },
    'runs.list': () => core.runs(),
    'runs.openFolder': ({ path }) => {
      if (!host.allowOpenFolder)
        throw new ApiError('unavailable', 'opening other folders is disabled in serve mode');
      // The first run's charts can show while the rest of a big folder loads (load.progress says how far).
      return core.open(path, { until: 'first-run' });
    },
    'runs.chooseFolder': async () => {
      if (!host.chooseFolder) throw new ApiError('unavailable', 'no folder picker in this mode');
      const picked = await host.chooseFolder();
      return picked === null ? null : core.open(picked, { until: 'first-run' });
    },
    'runs.recent': () => core.recent(),
    'runs.details': ({ run }) => core.details(run),
    'runs.saveView': ({ view }) => {
      core.saveView(view);
      return null;
    },
    'series.get': ({ run, tag, ...q }) => core.series(run, tag, q),
    'alerts.list': ({ run }) => core.alerts(run),
    'alerts.ack': ({ id }) => core.ack(id),
    'alerts.snooze': ({ id, minutes }) => core.snooze(id, minutes),
    'system.history': ({ sinceMs }) => core.systemHistory(sinceMs),
    'settings.get': () => core.getSettings(),
    'settings.set': ({ patch }) => core.setSettings(patch),
    'export.incident': ({ id, folder, step }) => core.incident(id, folder, step),
  };
}
