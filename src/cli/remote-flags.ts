// `--remote URL` of serve and watch (and RLWATCH_REMOTES): checked as usage errors that never print a token.

import { parseEndpointUrl } from '../core/remote/endpoint-url';
import { ApiError } from '../shared/result';
import { UsageError } from './usage';

/** `--remote` URLs, then RLWATCH_REMOTES' (space- or comma-separated); a malformed one is a usage error. */
export function remoteUrls(flags: readonly string[], env: string | undefined): string[] {
  const all = [...flags, ...(env ?? '').split(/[\s,]+/).filter((u) => u.length > 0)];
  for (const url of all) {
    try {
      parseEndpointUrl(url);
    } catch (err) {
      throw new UsageError(
        `--remote ${parseSafe(url)}: ${err instanceof ApiError ? err.message : String(err)}`,
      );
    }
  }
  return all;
}

/** A URL as it may be printed: its token left out. */
function parseSafe(url: string): string {
  return url.replace(/token=[^&#]*/g, 'token=…');
}
