// Which compression a client takes (Accept-Encoding), and compressed copies of served bytes kept per file.

import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

export type Coding = 'br' | 'gzip';

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

/** `body` compressed with `coding` (brotli at quality 6: near its best ratio at a fraction of quality 11's time). */
export function compress(body: Buffer | string, coding: Coding): Promise<Buffer> {
  return coding === 'br'
    ? brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 6 } })
    : gzipAsync(body);
}
