// A remote endpoint's URL (what `rlwatch serve`/`agent` prints) parsed into its id, socket URL, Origin and token.

import { ApiError } from '../../shared/result';
import { HOST_SEPARATOR } from '../../shared/run-key';

export interface EndpointUrl {
  /** `host:port` as the URL names it (lower-cased): the endpoint's id and the prefix of its run keys. */
  id: string;
  /** The URL as given, without its token (shown to users, logged). */
  shown: string;
  /** The URL as given, token included (what is saved in settings). */
  full: string;
  /** The API socket: `ws://host:port/ws?token=…`. */
  socket: string;
  /** The Origin serve requires of its socket: this very server as a page loaded from it sees it. */
  origin: string;
}

/**
 * Parses `http://HOST:PORT/?token=TOKEN`. Only plain http (loopback or an SSH tunnel): serve's socket
 * requires `Origin` = `http://` + its Host header, so that is what a page of it would send, and we send it.
 */
export function parseEndpointUrl(text: string): EndpointUrl {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new ApiError(
      'bad-request',
      'not a URL: give what `rlwatch serve` printed (http://HOST:PORT/?token=…)',
    );
  }
  if (url.protocol !== 'http:')
    throw new ApiError('bad-request', `an rlwatch endpoint is an http:// URL, not ${url.protocol}`);
  if (url.username !== '' || url.password !== '')
    throw new ApiError('bad-request', 'the URL must not hold a user name or password');
  const token = url.searchParams.get('token');
  if (token === null || token.length === 0)
    throw new ApiError('bad-request', 'the URL has no ?token=… (copy the whole URL)');
  if (token.length > 512) throw new ApiError('bad-request', 'the token is too long');
  const id = url.host.toLowerCase();
  if (id.length === 0 || id.length > 300 || id.includes(HOST_SEPARATOR))
    throw new ApiError('bad-request', 'bad host in the URL');
  const origin = `http://${id}`;
  const shown = new URL(origin);
  shown.pathname = url.pathname;
  return {
    id,
    shown: shown.toString(),
    full: `${origin}${url.pathname}?token=${encodeURIComponent(token)}`,
    socket: `ws://${id}/ws?token=${encodeURIComponent(token)}`,
    origin,
  };
}
