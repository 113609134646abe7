// Which compression a client takes (Accept-Encoding), and compressed copies of served bytes kept per file.

import { extname } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

export type Coding = 'br' | 'gzip';

/** Text files worth compressing (images and fonts are compressed already). */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.svg', '.json']);

/** Whether a renderer file goes compressed to a client that takes it. */
export const isCompressible = (path: string): boolean => COMPRESSIBLE.has(extname(path));

/** Where the build puts a file's copy compressed with `coding`: beside it (`index-….js.br`, `….js.gz`). */
export const precompressedPath = (path: string, coding: Coding): string =>
  `${path}${coding === 'br' ? '.br' : '.gz'}`;

/** The codings an Accept-Encoding header takes (`*` counts for both; `;q=0` refuses), preferred first. */
export function acceptedCodings(header: unknown): Coding[] {
  if (typeof header !== 'string' || header.length > 1024) return [];
  const ok = new Set<string>();
  const refused = new Set<string>();
  for (const part of header.split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find((m) => m !== null);
    const name = coding === 'x-gzip' ? 'gzip' : coding!;
    (q && !(Number(q[1]) > 0) ? refused : ok).add(name);
  }
  const takes = (c: Coding): boolean => !refused.has(c) && (ok.has(c) || (ok.has('*') && !refused.has('*')));
  return (['br', 'gzip'] as const).filter(takes);
}

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * `body` compressed with `coding`: at request time brotli at quality 6 (near its best ratio at a fraction of quality
 * 11's time); at build time (`best`) brotli 11 and gzip 9, made once and served as they are.
 */
export function compress(body: Buffer | string, coding: Coding, best = false): Promise<Buffer> {
  return coding === 'br'
    ? brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: best ? 11 : 6 } })
    : gzipAsync(body, { level: best ? 9 : 6 });
}
