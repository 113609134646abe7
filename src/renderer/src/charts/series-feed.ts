// One subscription point for series pushes: routes series.appended / series.reset to the charts showing run+tag.

import type { RlwatchBridge } from '../../../shared/bridge';
import type { SeriesDelta, SeriesReset } from '../../../shared/domain';

/** What the feed needs of a Backend (../backend/backend satisfies it). */
export interface FeedSource {
  on: RlwatchBridge['on'];
  onConnection?(listener: (state: 'connected' | 'reconnecting') => void): () => void;
}

export interface SeriesListener {
  append(delta: SeriesDelta): void;
  /** Re-query: the live view changed other than by appending, or the connection dropped and deltas were lost. */
  reset(reset: SeriesReset): void;
}

export interface SeriesFeed {
  subscribe(run: string, tag: string, listener: SeriesListener): () => void;
  /** How many listeners are subscribed (for tests and the status line). */
  readonly size: number;
  dispose(): void;
}

const keyOf = (run: string, tag: string): string => `${run}\u0000${tag}`;

/** Create ONE per app: it registers a single listener per push event on the backend. */
export function createSeriesFeed(backend: FeedSource): SeriesFeed {
  const byKey = new Map<string, Set<SeriesListener>>();
  let size = 0;
  let dropped = false;
  const offs = [
    backend.on('series.appended', (d) => {
      const set = byKey.get(keyOf(d.run, d.tag));
      if (set) for (const l of set) l.append(d);
    }),
    backend.on('series.reset', (r) => {
      const set = byKey.get(keyOf(r.run, r.tag));
      if (set) for (const l of set) l.reset(r);
    }),
  ];
  if (backend.onConnection) {
    offs.push(
      backend.onConnection((state) => {
        if (state === 'reconnecting') dropped = true;
        else if (dropped) {
          // Deltas pushed while the socket was down are gone: every chart re-queries.
          dropped = false;
          for (const [key, set] of byKey) {
            const [run, tag] = key.split('\u0000') as [string, string];
            for (const l of set) l.reset({ run, tag, reason: 'bulk' });
          }
        }
      }),
    );
  }
  return {
    subscribe(run, tag, listener) {
      const key = keyOf(run, tag);
      let set = byKey.get(key);
      if (!set) byKey.set(key, (set = new Set()));
      if (!set.has(listener)) size++;
      set.add(listener);
      return () => {
        if (set.delete(listener)) size--;
        if (set.size === 0 && byKey.get(key) === set) byKey.delete(key);
      };
    },
    get size() {
      return size;
    },
    dispose() {
      offs.forEach((off) => off());
      byKey.clear();
      size = 0;
    },
  };
}
