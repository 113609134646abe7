// Serves the built renderer's files, confined to its folder, with types and security headers.

import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { ServerResponse } from 'node:http';
import { CONTENT_SECURITY_POLICY } from '../../shared/csp';
import { acceptedCodings, compress, isCompressible, precompressedPath, type Coding } from './content-coding';

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

/** Compressed copies of the renderer's files, made once per file version and coding (the bundle is a few files); a
 * copy being made is shared, so two requests at once (a page opened twice) never compress a file twice. */
const compressed = new Map<string, { version: string; body: Promise<Buffer> }>();
const MAX_COMPRESSED = 64;

/** The build's copy of `path` in `coding` (`precompress.ts`) when it is there and no older than the file; else null. */
async function builtCopy(path: string, mtimeMs: number, coding: Coding): Promise<Buffer | null> {
  const copy = precompressedPath(path, coding);
  try {
    if ((await stat(copy)).mtimeMs < mtimeMs) return null;
    return await readFile(copy);
  } catch {
    return null;
  }
}

function compressedCopy(
  path: string,
  st: { version: string; mtimeMs: number },
  body: Buffer,
  coding: Coding,
): Promise<Buffer> {
  const key = `${coding}:${path}`;
  const hit = compressed.get(key);
  if (hit?.version === st.version) return hit.body;
  // The build's copy is sent as it is; without one (a dev tree, a file changed since) it is made here.
  const out = builtCopy(path, st.mtimeMs, coding).then((b) => b ?? compress(body, coding));
  if (compressed.size >= MAX_COMPRESSED) compressed.clear();
  compressed.set(key, { version: st.version, body: out });
  // A failed compression is not kept: the next request tries again.
  out.catch(() => compressed.get(key)?.body === out && compressed.delete(key));
  return out;
}

/**
 * Sends a renderer file; a text file goes brotli- or gzip-compressed when the client takes it (`acceptEncoding`,
 * the request's header), so the page crosses an SSH tunnel in a third of the bytes: the build's copy when there is
 * one, so the page's first request does not wait for its script to be compressed (#36).
 */
export async function sendFile(
  res: ServerResponse,
  path: string,
  extraHeaders: Record<string, string> = {},
  acceptEncoding?: string,
): Promise<boolean> {
  let body: Buffer;
  let st: { version: string; mtimeMs: number };
  try {
    const { size, mtimeMs } = await stat(path);
    st = { version: `${size}:${mtimeMs}`, mtimeMs };
    body = await readFile(path);
  } catch {
    return false;
  }
  const coding = isCompressible(path) ? (acceptedCodings(acceptEncoding)[0] ?? null) : null;
  const sent = coding ? await compressedCopy(path, st, body, coding) : body;
  res.writeHead(200, {
    'Content-Type': contentTypeOf(path),
    'Content-Length': String(sent.length),
    'Cache-Control': extname(path) === '.html' ? 'no-store' : 'private, max-age=3600',
    ...(isCompressible(path) ? { Vary: 'Accept-Encoding' } : {}),
    ...(coding ? { 'Content-Encoding': coding } : {}),
    ...securityHeaders(),
    ...extraHeaders,
  });
  res.end(sent);
  return true;
}
