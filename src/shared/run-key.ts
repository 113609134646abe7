// Run keys across endpoints: a remote run is `HOST//RUN`; a local run name (a normalised relative path) never holds `//`.

import { JOB_ALERT_PREFIX } from './job-types';

/** Between an endpoint's host label and the run name it gives; absent from every local run name and host label. */
export const HOST_SEPARATOR = '//';

/** The key a run of endpoint `host` has in the one run list. */
export const remoteRunKey = (host: string, run: string): string => `${host}${HOST_SEPARATOR}${run}`;

/**
 * A tracker's run id (trackio, MLflow) as a part of a local run key: `%` written `%25` and each `/` right after
 * another `%2F` (`a//b` is `a/%2Fb`), so the key never holds `//` (where `splitRunKey` would read a host) and two ids
 * never give one key.
 */
export function runIdKeyPart(id: string): string {
  return id.replace(/%/g, '%25').replace(/(?<=\/)\//g, '%2F');
}

/** The host and the endpoint's own name of a key; host null for a local run. Splits at the first `//`,
 * so a run that an endpoint itself got from another endpoint keeps its own key intact. */
export function splitRunKey(key: string): { host: string | null; run: string } {
  const at = key.indexOf(HOST_SEPARATOR);
  return at <= 0
    ? { host: null, run: key }
    : { host: key.slice(0, at), run: key.slice(at + HOST_SEPARATOR.length) };
}

/** Whether an alert is one of this app's own folder's (not a remote endpoint's, not a job rule's): only those have
 * an incident snapshot here (`export.incident` reads the run's files). */
export function isOwnFolderAlert(a: { id: string; run: string }): boolean {
  return !a.id.startsWith(JOB_ALERT_PREFIX) && splitRunKey(a.run).host === null;
}
