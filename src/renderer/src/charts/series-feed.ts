// One subscription point for series pushes: routes series.appended / series.reset to the charts showing run+tag,
// and tells the backend which series those are (serve then pushes only them).

import type { RlwatchBridge } from '../../../shared/bridge';
import type { SeriesDelta, SeriesReset } from '../../../shared/domain';

/** What the feed needs of a Backend (../backend/backend satisfies it). */
export interface FeedSource {
  on: RlwatchBridge['on'];
  /** Where `series.follow` goes: a series' first subscriber follows it, its last one leaving unfollows it. */
  invoke?: RlwatchBridge['invoke'];
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
  // Sent at once, before the chart's series.get: the server answers one client's requests in order, so no append
  // after the window it answers is held back.
  const follow = (run: string, tag: string, on: boolean): void =>
    void backend.invoke?.('series.follow', { run, tag, follow: on });
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
          // Deltas pushed while the socket was down are gone: every chart re-queries. The new connection follows
          // nothing yet: the series shown are followed again first.
          dropped = false;
          for (const key of byKey.keys()) {
            const [run, tag] = key.split('\u0000') as [string, string];
            follow(run, tag, true);
          }
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
      if (!set) {
        byKey.set(key, (set = new Set()));
        follow(run, tag, true);
      }
      if (!set.has(listener)) size++;
      set.add(listener);
      return () => {
        if (set.delete(listener)) size--;
        if (set.size === 0 && byKey.get(key) === set) {
          byKey.delete(key);
          follow(run, tag, false);
        }
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
