// Access token for serve mode: random, compared in constant time; the cookie carries only an asset pass.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

export function sameToken(expected: string, given: string | null | undefined): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Cookies ignore ports, so every server on 127.0.0.1 receives this cookie. It therefore never holds
 * the token: only a pass derived from it (HMAC) that loads the page's static files. The API socket
 * accepts the token itself, from its URL, and nothing else.
 */
export function assetPass(token: string): string {
  return createHmac('sha256', token).update('rlwatch static assets').digest('base64url');
}

/** One cookie name per server instance (by port), so two rlwatch servers never overwrite each other's. */
export function assetCookieName(port: number): string {
  return `rlwatch_assets_${port}`;
}

/** The Set-Cookie value: host-only (no Domain), Path=/, HttpOnly, SameSite=Strict — `__Host-` semantics
 * without its Secure flag, which plain-http loopback cannot carry. */
export function assetCookie(port: number, token: string): string {
  return `${assetCookieName(port)}=${assetPass(token)}; HttpOnly; SameSite=Strict; Path=/`;
}

/** The `?token=` of a request URL, or null. */
export function queryToken(url: URL): string | null {
  return url.searchParams.get('token');
}

/** The value of cookie `name` in a request, or null; malformed escapes are null, never a throw. */
export function requestCookie(req: IncomingMessage, name: string): string | null {
  const cookie = req.headers.cookie ?? '';
  for (const part of cookie.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return safeDecode(v.join('='));
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
