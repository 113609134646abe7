// texts.list / texts.get: a run's text samples across its sources (TensorBoard `text` summaries), for a samples view.

import { ApiError } from '../../shared/result';
import {
  TEXT_PAGE_MAX,
  type TextItem,
  type TextPage,
  type TextSource,
  type TextTagInfo,
} from '../../shared/text-items';

/** Every tag of the sources with its item count and step span, by tag name. */
export function textTags(sources: readonly TextSource[]): TextTagInfo[] {
  const byTag = new Map<string, TextTagInfo>();
  for (const src of sources) {
    for (const t of src.tags()) {
      const seen = byTag.get(t.tag);
      if (!seen) byTag.set(t.tag, { ...t });
      else {
        seen.count += t.count;
        seen.firstStep = Math.min(seen.firstStep, t.firstStep);
        seen.lastStep = Math.max(seen.lastStep, t.lastStep);
      }
    }
  }
  return [...byTag.values()].sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
}

/** A tag's items across the sources in file order (those at `step` only when given), the newest `limit`. */
export function textPage(
  run: string,
  tag: string,
  sources: readonly TextSource[],
  step: number | undefined,
  limit: number = TEXT_PAGE_MAX,
): TextPage {
  const all: TextItem[] = [];
  let dropped = 0;
  for (const src of sources) {
    all.push(...src.items(tag, step));
    dropped += src.dropped;
  }
  if (all.length === 0 && !sources.some((s) => s.tags().some((t) => t.tag === tag)))
    throw new ApiError('not-found', `run ${run} has no texts tagged ${tag}`);
  const n = Math.min(limit, TEXT_PAGE_MAX);
  return { run, tag, items: all.length > n ? all.slice(all.length - n) : all, dropped };
}
