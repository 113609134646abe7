// Serves the built renderer's files, confined to its folder, with types and security headers.

import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { ServerResponse } from 'node:http';
import { CONTENT_SECURITY_POLICY } from '../../shared/csp';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** The Content-Type a renderer file is served with. */
export function contentTypeOf(path: string): string {
  return TYPES[extname(path)] ?? 'application/octet-stream';
}

export function securityHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
  };
}

/** Resolves a URL path inside `root`, or null when it would escape it. */
export function resolveInside(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const full = normalize(join(root, decoded));
  return full === root || full.startsWith(root.endsWith(sep) ? root : root + sep) ? full : null;
}

/** Whether a URL path asks for the page itself. */
export const isPagePath = (urlPath: string): boolean => urlPath === '/' || urlPath === '/index.html';

/** The file a URL path names in the renderer folder: the page, or a file strictly inside; null otherwise. */
export function rendererPathFor(rendererDir: string, urlPath: string): string | null {
  return isPagePath(urlPath) ? join(rendererDir, 'index.html') : resolveInside(rendererDir, urlPath);
}

export async function sendFile(
  res: ServerResponse,
  path: string,
  extraHeaders: Record<string, string> = {},
): Promise<boolean> {
  let body: Buffer;
  try {
    body = await readFile(path);
  } catch {
    return false;
  }
  res.writeHead(200, {
    'Content-Type': contentTypeOf(path),
    'Content-Length': String(body.length),
    'Cache-Control': extname(path) === '.html' ? 'no-store' : 'private, max-age=3600',
    ...securityHeaders(),
    ...extraHeaders,
  });
  res.end(body);
  return true;
}
