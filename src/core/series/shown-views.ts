// A whole run's shown series, built the way the live workspace builds them: per tag the best format's sources, split
// into writers, each a LiveView (restarts cut in, every session kept). Exports and figures read these.

import { LiveView } from './live-view';
import { shownSeriesWriters, writerTag, type TagSource } from './writers';

/** Per shown tag (`tag`, or `tag (label)` for another writer of it), its live view. */
export type RunViews = ReadonlyMap<string, LiveView>;

export function shownViews(series: ReadonlyMap<string, readonly TagSource[]>): Map<string, LiveView> {
  const out = new Map<string, LiveView>();
  for (const [tag, sources] of series)
    for (const w of shownSeriesWriters(sources)) {
      const view = new LiveView();
      view.setParts(
        w.sources.map((s) => s.ref),
        'bulk',
      );
      view.feed(Number.POSITIVE_INFINITY);
      out.set(writerTag(tag, w.label), view);
    }
  return out;
}
