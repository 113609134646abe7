// Pure renaming of what an endpoint sends into the one run list's keys (`HOST//RUN`), and back for requests.

import type {
  AlertChange,
  AlertInfo,
  RunInfo,
  SeriesDelta,
  SeriesReset,
  SeriesWindow,
} from '../../shared/domain';
import { remoteRunKey, splitRunKey } from '../../shared/run-key';

export const renameRun = (host: string, r: RunInfo): RunInfo => ({
  ...r,
  run: remoteRunKey(host, r.run),
  host,
});

/** An alert's id is prefixed the same way as its run, so ack and snooze can be routed by id alone. */
export const renameAlert = (host: string, a: AlertInfo): AlertInfo => ({
  ...a,
  id: remoteRunKey(host, a.id),
  run: remoteRunKey(host, a.run),
});

export const renameAlertChange = (host: string, c: AlertChange): AlertChange => ({
  kind: c.kind,
  alert: renameAlert(host, c.alert),
});

export const renameSeries = <T extends SeriesWindow | SeriesDelta | SeriesReset>(host: string, s: T): T => ({
  ...s,
  run: remoteRunKey(host, s.run),
});

/** The name (or alert id) the endpoint itself uses for one of our keys; null when the key is not of `host`. */
export function remoteName(host: string, key: string): string | null {
  const k = splitRunKey(key);
  return k.host === host ? k.run : null;
}
