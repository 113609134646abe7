// The series feed: one backend listener per event, routed to the subscribers of run+tag; reconnect re-queries.

import { describe, expect, test } from 'vitest';
import type { SeriesDelta, SeriesReset } from '../../../src/shared/domain';
import { createSeriesFeed } from '../../../src/renderer/src/charts/series-feed';

function fakeBackend() {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const conn = new Set<(s: 'connected' | 'reconnecting') => void>();
  return {
    on(event: string, l: (p: never) => void) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(l as (p: unknown) => void);
      return () => set.delete(l as (p: unknown) => void);
    },
    onConnection(l: (s: 'connected' | 'reconnecting') => void) {
      conn.add(l);
      return () => conn.delete(l);
    },
    emit(event: string, payload: unknown) {
      listeners.get(event)?.forEach((l) => l(payload));
    },
    connection(s: 'connected' | 'reconnecting') {
      conn.forEach((l) => l(s));
    },
    count: () => [...listeners.values()].reduce((n, s) => n + s.size, 0),
  };
}

const d = (run: string, tag: string): SeriesDelta => ({
  run,
  tag,
  from: 0,
  steps: new Float64Array(0),
  wallTimes: new Float64Array(0),
  values: new Float64Array(0),
});

describe('createSeriesFeed', () => {
  test('routes appends and resets by run and tag, and stops after unsubscribe', () => {
    const b = fakeBackend();
    const feed = createSeriesFeed(b as never);
    const got: string[] = [];
    const off = feed.subscribe('r1', 'kl', {
      append: (x) => got.push(`a:${x.run}/${x.tag}`),
      reset: (x: SeriesReset) => got.push(`r:${x.reason}`),
    });
    feed.subscribe('r2', 'kl', { append: () => got.push('other'), reset: () => {} });
    b.emit('series.appended', d('r1', 'kl'));
    b.emit('series.appended', d('r1', 'entropy'));
    b.emit('series.reset', { run: 'r1', tag: 'kl', reason: 'restart' });
    expect(got).toEqual(['a:r1/kl', 'r:restart']);
    expect(feed.size).toBe(2);
    off();
    b.emit('series.appended', d('r1', 'kl'));
    expect(got).toHaveLength(2);
    expect(feed.size).toBe(1);
  });

  test('one backend listener per event however many charts subscribe', () => {
    const b = fakeBackend();
    const feed = createSeriesFeed(b as never);
    for (let i = 0; i < 50; i++) feed.subscribe('r', `t${i}`, { append: () => {}, reset: () => {} });
    expect(b.count()).toBe(2);
    feed.dispose();
    expect(b.count()).toBe(0);
  });

  test('after a dropped connection every subscriber is told to re-query', () => {
    const b = fakeBackend();
    const feed = createSeriesFeed(b as never);
    const resets: string[] = [];
    feed.subscribe('r', 'a', { append: () => {}, reset: (x) => resets.push(`${x.tag}:${x.reason}`) });
    feed.subscribe('r', 'b', { append: () => {}, reset: (x) => resets.push(`${x.tag}:${x.reason}`) });
    b.connection('connected');
    expect(resets).toEqual([]);
    b.connection('reconnecting');
    b.connection('connected');
    expect(resets).toEqual(['a:bulk', 'b:bulk']);
  });

  test("a series' first subscriber follows it, its last unfollows it, and a new connection follows again before re-querying", () => {
    const b = fakeBackend();
    const said: string[] = [];
    const invoke = (
      channel: string,
      args: { run: string; tag: string; follow: boolean },
    ): Promise<unknown> => {
      said.push(`${channel} ${args.run}/${args.tag} ${args.follow}`);
      return Promise.resolve({ ok: true, value: null });
    };
    const feed = createSeriesFeed({ ...b, invoke } as never);
    const l = (name: string) => ({ append: () => {}, reset: () => said.push(`reset ${name}`) });
    const offA1 = feed.subscribe('r', 'a', l('a1'));
    const offA2 = feed.subscribe('r', 'a', l('a2'));
    const offB = feed.subscribe('r', 'b', l('b'));
    expect(said).toEqual(['series.follow r/a true', 'series.follow r/b true']);
    offA1();
    expect(said).toHaveLength(2);
    said.length = 0;
    b.connection('reconnecting');
    b.connection('connected');
    expect(said).toEqual(['series.follow r/a true', 'series.follow r/b true', 'reset a2', 'reset b']);
    said.length = 0;
    offA2();
    offB();
    expect(said).toEqual(['series.follow r/a false', 'series.follow r/b false']);
  });
});
