// histograms.list / histograms.get: a run's histogram tags across its sources, and one tag's steps downsampled for the distributions view.

import { ApiError } from '../../shared/result';
import {
  histogramView,
  type HistogramSource,
  type HistogramStep,
  type HistogramTagInfo,
  type HistogramView,
} from '../../shared/histogram-items';

/** Every tag of the sources with its step counts and span, by tag name. */
export function histogramTags(sources: readonly HistogramSource[]): HistogramTagInfo[] {
  const byTag = new Map<string, HistogramTagInfo>();
  for (const src of sources) {
    for (const t of src.tags()) {
      const seen = byTag.get(t.tag);
      if (!seen) byTag.set(t.tag, { ...t });
      else {
        seen.steps += t.steps;
        seen.seen += t.seen;
        seen.firstStep = Math.min(seen.firstStep, t.firstStep);
        seen.lastStep = Math.max(seen.lastStep, t.lastStep);
      }
    }
  }
  return [...byTag.values()].sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
}

/** A tag's kept steps across the sources ordered by step (file order among equal steps), as the view's answer. */
export function histogramTagView(
  run: string,
  tag: string,
  sources: readonly HistogramSource[],
): HistogramView {
  const all: HistogramStep[] = [];
  let seen = 0;
  let dropped = 0;
  for (const src of sources) {
    all.push(...src.steps(tag));
    dropped += src.dropped;
    seen += src.seen(tag);
  }
  if (all.length === 0) throw new ApiError('not-found', `run ${run} has no histograms tagged ${tag}`);
  // A stable sort: steps of several files (a resumed run) interleave by step.
  all.sort((a, b) => a.step - b.step);
  return histogramView(run, tag, all, seen, dropped);
}
