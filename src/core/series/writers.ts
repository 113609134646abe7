// Concurrent writers of one tag: sources written at the same time (train and validation event files copied into
// one folder, two nodes writing one folder) are kept apart, sources written one after another form one writer.

import { bestFormatParts, type SourceFormatName } from '../../shared/formats';
import type { ScalarSeries } from './scalar-series';

export { writerTag } from '../../shared/writer-tag';

export interface WriterSource<T> {
  /** The source's file name (a writer's label comes from what sets its name apart). */
  name: string;
  /** Wall time (s) of its first and last point of the tag; NaN where it has none or no times. */
  start: number;
  end: number;
  /** What the caller keeps per source (its series, its entry). */
  ref: T;
}

/** First and last wall time of a series; NaN where it has no points or no times. */
export function wallSpan(s: ScalarSeries): { start: number; end: number } {
  return s.length === 0
    ? { start: Number.NaN, end: Number.NaN }
    : { start: s.wallTime(0), end: s.wallTime(s.length - 1) };
}

export interface Writer<T> {
  /** null for the first writer (shown as the tag itself); else what names it: `validation`, `node-2`, `writer 2`. */
  label: string | null;
  sources: WriterSource<T>[];
}

/** Characters two names share at their end. */
function commonSuffix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

/**
 * Splits the sources of one tag (in file order) into writers. A source whose wall times overlap every writer's
 * so far (it started before each one's last point) is another writer written at the same time; otherwise it
 * continues the writer that ended before it started (a restart or a rotated file: steps going back there are
 * sessions), the one whose file name it resembles most where several did. Sources with no points or no times
 * join the first writer in file order, as before. Writers come back ordered by their first point.
 */
export function splitWriters<T>(sources: readonly WriterSource<T>[]): Writer<T>[] {
  const timed: { src: WriterSource<T>; start: number; end: number; order: number }[] = [];
  const untimed: WriterSource<T>[] = [];
  sources.forEach((src, order) => {
    const { start, end } = src;
    if (Number.isFinite(start) && Number.isFinite(end)) timed.push({ src, start, end, order });
    else untimed.push(src);
  });
  if (timed.length <= 1) return [{ label: null, sources: [...sources] }];
  timed.sort((a, b) => a.start - b.start || a.order - b.order);
  const chains: { sources: WriterSource<T>[]; end: number; last: string; order: number }[] = [];
  for (const t of timed) {
    let best: (typeof chains)[number] | null = null;
    for (const c of chains) {
      if (c.end > t.start) continue;
      if (!best || commonSuffix(c.last, t.src.name) > commonSuffix(best.last, t.src.name)) best = c;
    }
    if (best) {
      best.sources.push(t.src);
      best.end = Math.max(best.end, t.end);
      best.last = t.src.name;
    } else chains.push({ sources: [t.src], end: t.end, last: t.src.name, order: t.order });
  }
  if (chains.length === 1) return [{ label: null, sources: [...sources] }];
  // Sources with no times stay with the first writer, in file order.
  const first = chains[0]!;
  if (untimed.length > 0) {
    const mine = new Set<WriterSource<T>>([...first.sources, ...untimed]);
    first.sources = sources.filter((s) => mine.has(s));
  }
  const used = new Set<string>();
  return chains.map((c, k) => {
    let label: string | null = null;
    if (k > 0) {
      label = writerLabel(first.sources[0]!.name, c.sources[0]!.name, k);
      if (used.has(label)) label = `writer ${k + 1}`;
      used.add(label);
    }
    return { label, sources: c.sources };
  });
}

/** What sets `name` apart from `firstName`: its dot-separated parts with a letter that the first writer's name
 * lacks (`validation`, a host name), else `writer N`. */
export function writerLabel(firstName: string, name: string, index: number): string {
  const theirs = new Set(firstName.split('.'));
  const own = name.split('.').filter((p) => !theirs.has(p) && /[a-z]/i.test(p) && p.length <= 40);
  return own.length > 0 ? own.join('.') : `writer ${index + 1}`;
}

/** A tag's series in one source, as both the live workspace and whole-run readers hold them. */
export interface TagSource {
  name: string;
  format: SourceFormatName;
  series: ScalarSeries;
}

/** The writers of a tag as the dashboard shows them: the sources of the best-ranked format carrying it (one format
 * per tag), in file order, split where they were written at the same time. `inspect` gives its summaries' spans. */
export function shownWriters<T>(
  sources: readonly (WriterSource<T> & { format: SourceFormatName })[],
): Writer<T>[] {
  return splitWriters(bestFormatParts(sources, (s) => s.format));
}

/** `shownWriters` of sources holding their series: the spans from the series themselves. */
export function shownSeriesWriters(sources: readonly TagSource[]): Writer<ScalarSeries>[] {
  // One source (most runs' every tag, at every read: 2,500 a second with 50 runs × 50 tags) is its one writer,
  // whatever its times: no format to rank, no split to work out (#36).
  if (sources.length === 1) {
    const { name, series } = sources[0]!;
    const n = series.length;
    const start = n === 0 ? Number.NaN : series.wallTime(0);
    const end = n === 0 ? Number.NaN : series.wallTime(n - 1);
    return [{ label: null, sources: [{ name, start, end, ref: series }] }];
  }
  return shownWriters(
    sources.map((s) => ({ name: s.name, format: s.format, ...wallSpan(s.series), ref: s.series })),
  );
}
