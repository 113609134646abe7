// Access token for serve mode: random, compared in constant time, read from the query or a cookie.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const TOKEN_COOKIE = 'rlwatch_token';

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

export function sameToken(expected: string, given: string | null | undefined): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token a request carries: `?token=` first, then the cookie set when the page was loaded. */
export function requestToken(req: IncomingMessage, url: URL): string | null {
  const fromQuery = url.searchParams.get('token');
  if (fromQuery) return fromQuery;
  const cookie = req.headers.cookie ?? '';
  for (const part of cookie.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === TOKEN_COOKIE) return safeDecode(v.join('='));
  }
  return null;
}

/** decodeURIComponent that answers null for malformed escapes (`%`, `%zz`) instead of throwing. */
function safeDecode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}
