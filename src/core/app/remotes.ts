// The app's remote rlwatch endpoints: the hub wired to the app, following the saved endpoints and the session's own.

import type { AlertChange } from '../../shared/domain';
import {
  parseSavedRemotes,
  RemoteHub,
  REMOTES_SETTING_KEY,
  type RemoteHubOptions,
} from '../remote/remote-hub';
import type { Store } from '../store';

export interface RemotesWiring {
  clock: () => number;
  store: () => Store;
  push: RemoteHubOptions['push'];
  runsChanged(): void;
  alertChanged(change: AlertChange): void;
  tuning: RemoteHubOptions['tuning'];
  /** Endpoints for this session only (`serve --remote`), never saved. */
  session: readonly string[];
  /** An endpoint that could not be added (a bad saved URL): said once, the rest are followed. */
  warn(message: string): void;
}

/** The hub, following the endpoints saved in settings and the session's own. */
export function createRemotes(w: RemotesWiring): RemoteHub {
  const hub = new RemoteHub({
    clock: w.clock,
    push: (event, payload) => w.push(event, payload),
    runsChanged: w.runsChanged,
    alertChanged: w.alertChanged,
    save: (urls) => w.store().setSetting(REMOTES_SETTING_KEY, urls),
    tuning: w.tuning,
  });
  const wanted = [
    ...parseSavedRemotes(w.store().getSetting(REMOTES_SETTING_KEY)).map((url) => ({
      url,
      sessionOnly: false,
    })),
    ...w.session.map((url) => ({ url, sessionOnly: true })),
  ];
  for (const e of wanted) {
    try {
      hub.add(e.url, { sessionOnly: e.sessionOnly });
    } catch (err) {
      w.warn(`Remote endpoint not added: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return hub;
}
