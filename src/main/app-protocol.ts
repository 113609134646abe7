// The window's page over `app://rlwatch/`: the built renderer's files only, with the CSP on every answer.

import { readFile } from 'node:fs/promises';
import { contentTypeOf, rendererPathFor, securityHeaders } from '../core/server/static-files';

export const APP_SCHEME = 'app';
export const APP_HOST = 'rlwatch';
/** The page the window loads in every mode but `electron-vite dev`. */
export const APP_PAGE = `${APP_SCHEME}://${APP_HOST}/index.html`;

/**
 * Answers one `app://` request from the renderer folder: `app://rlwatch/` and `/index.html` give the
 * page, other paths a file strictly inside `rendererDir`, anything else (another host, an escape,
 * a missing file, a method other than GET/HEAD) a status with no body from elsewhere.
 */
export async function appProtocolResponse(
  rendererDir: string,
  request: { url: string; method?: string },
  read: (path: string) => Promise<Buffer> = readFile,
): Promise<Response> {
  const headers = securityHeaders();
  const method = (request.method ?? 'GET').toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') return new Response(null, { status: 405, headers });
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return new Response(null, { status: 400, headers });
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST)
    return new Response(null, { status: 404, headers });
  const path = rendererPathFor(rendererDir, url.pathname);
  if (path === null) return new Response(null, { status: 404, headers });
  let body: Buffer;
  try {
    body = await read(path);
  } catch {
    return new Response(null, { status: 404, headers });
  }
  return new Response(method === 'HEAD' ? null : new Uint8Array(body), {
    status: 200,
    headers: { ...headers, 'Content-Type': contentTypeOf(path), 'Cache-Control': 'no-store' },
  });
}

/**
 * The dev server's URL, trusted only under `electron-vite dev` (which sets both variables) and only on
 * loopback; `rlwatch open` and a packaged app always load `app://`.
 */
export function devRendererUrl(env: NodeJS.ProcessEnv, packaged: boolean): string | null {
  if (packaged || env.NODE_ENV_ELECTRON_VITE !== 'development') return null;
  const raw = env.ELECTRON_RENDERER_URL;
  if (!raw) return null;
  try {
    const u = new URL(raw);
    const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
    return (u.protocol === 'http:' || u.protocol === 'https:') && loopback ? raw : null;
  } catch {
    return null;
  }
}
