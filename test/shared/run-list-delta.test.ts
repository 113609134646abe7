// The run list as a stream of changes (#36): a change applied to a list gives the list it was made from, a push that
// does not follow the page's list or does not hold together is a typed error (and a resync), never a wrong list.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { RunInfo } from '../../src/shared/domain';
import {
  applyRunListPush,
  diffRunLists,
  RunListDeltaError,
  RunListFeed,
  RunListStream,
  sameJson,
  type RunListPush,
} from '../../src/shared/run-list-delta';

const run = (name: string, over: Partial<RunInfo> = {}): RunInfo => ({
  run: name,
  sources: [{ path: `/r/${name}/metrics.csv`, name: 'metrics.csv', format: 'csv' } as never],
  tags: ['reward', 'kl'],
  points: 3,
  lastEventAt: null,
  fileWrittenAt: 1_700_000_000_000,
  progress: null,
  loaded: false,
  restarts: 0,
  sessions: [],
  worstAlert: null,
  stalled: false,
  ...over,
});

/** A list of runs with distinct names, in some order, each with fields that vary. */
const runList = fc
  .uniqueArray(fc.constantFrom(...'abcdefghijkl'.split('')), { maxLength: 12 })
  .chain((names) =>
    fc.tuple(
      ...names.map((n) =>
        fc
          .record({
            points: fc.nat(5),
            loaded: fc.boolean(),
            worstAlert: fc.constantFrom(null, 'warning' as const, 'critical' as const),
            alive: fc.option(fc.boolean(), { nil: undefined }),
          })
          .map(({ alive, ...over }) =>
            run(n, {
              ...over,
              ...(alive === undefined
                ? {}
                : { trainer: { state: alive ? 'alive' : 'exited', processes: [], exitedAt: null } }),
            }),
          ),
      ),
    ),
  );

const json = (x: unknown): unknown => JSON.parse(JSON.stringify(x));

describe('a run list as changes', () => {
  test('a change applied to the list it was made from gives the new list, the same as the whole one', () => {
    fc.assert(
      fc.property(runList, runList, (before, after) => {
        const push = diffRunLists(before, 4, after, 5);
        // Through the wire's JSON, as the page gets it.
        const got = applyRunListPush({ seq: 4, runs: json(before) as RunInfo[] }, json(push) as RunListPush);
        expect(got.seq).toBe(5);
        expect(got.runs).toEqual(json(after));
      }),
    );
  });

  test('one run changed in 10,000 is pushed as that run alone (not 2.85 MB)', () => {
    const before = Array.from({ length: 10_000 }, (_, i) => run(`run_${String(i).padStart(5, '0')}`));
    const after = before.map((r, i) => (i === 7 ? { ...r, loaded: true, points: 9 } : { ...r }));
    const push = diffRunLists(before, 0, after, 1);
    expect(push).toEqual({ seq: 1, base: 0, changed: [after[7]], removed: [] });
    expect(JSON.stringify(push).length * 1000).toBeLessThan(JSON.stringify(after).length);
  });

  test('runs added and removed carry the new order; an unchanged list is an empty change', () => {
    const a = [run('a'), run('b'), run('c')];
    const push = diffRunLists(a, 0, [run('a'), run('c'), run('d')], 1);
    expect(push).toEqual({ seq: 1, base: 0, changed: [run('d')], removed: ['b'], order: ['a', 'c', 'd'] });
    expect(diffRunLists(a, 1, json(a) as RunInfo[], 2)).toEqual({
      seq: 2,
      base: 1,
      changed: [],
      removed: [],
    });
  });

  test('a list naming a run twice goes whole (a change names runs by name)', () => {
    const twice = [run('a'), run('a', { points: 1 })];
    expect(diffRunLists([run('a')], 0, twice, 1).base).toBeNull();
  });

  test('sameJson says what JSON text would: an undefined property is no property; order of keys does not matter', () => {
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameJson([1, 2], [1, 2, 3])).toBe(false);
    expect(sameJson({ a: [1] }, { a: { 0: 1 } })).toBe(false);
  });
});

describe('a push that does not follow or does not hold together', () => {
  const state = { seq: 3, runs: [run('a'), run('b')] };
  const bad = (push: RunListPush, s: { seq: number; runs: RunInfo[] } | null = state): string => {
    try {
      applyRunListPush(s, push);
    } catch (e) {
      expect(e).toBeInstanceOf(RunListDeltaError);
      return (e as RunListDeltaError).reason;
    }
    return 'applied';
  };

  test('is a typed error, never a wrong list', () => {
    // A change of another list than the page has (a push lost, or one from before a resync).
    expect(bad({ seq: 5, base: 4, changed: [], removed: [] })).toBe('out-of-step');
    expect(bad({ seq: 1, base: 0, changed: [], removed: [] }, null)).toBe('out-of-step');
    // Removing a run it does not list; removing without the order left; adding without saying where.
    expect(bad({ seq: 4, base: 3, changed: [], removed: ['x'], order: ['a', 'b'] })).toBe('malformed');
    expect(bad({ seq: 4, base: 3, changed: [], removed: ['a'] })).toBe('malformed');
    expect(bad({ seq: 4, base: 3, changed: [run('x')], removed: [] })).toBe('malformed');
    // An order that misses a run, names one twice, or names one it does not have.
    expect(bad({ seq: 4, base: 3, changed: [], removed: [], order: ['a'] })).toBe('malformed');
    expect(bad({ seq: 4, base: 3, changed: [], removed: [], order: ['a', 'a'] })).toBe('malformed');
    expect(bad({ seq: 4, base: 3, changed: [], removed: [], order: ['a', 'x'] })).toBe('malformed');
    expect(bad({ seq: 4, base: 3, changed: [run('b'), run('b')], removed: [] })).toBe('malformed');
    // A whole list naming a run twice.
    expect(bad({ seq: 4, base: null, changed: [run('a'), run('a')], removed: [] })).toBe('malformed');
    // The list given is left as it was.
    expect(state.runs.map((r) => r.run)).toEqual(['a', 'b']);
  });

  test('the page asks once for the whole list, drops what follows until it comes, then takes changes again', () => {
    const stream = new RunListStream();
    const errors: string[] = [];
    const onError = (e: RunListDeltaError): void => void errors.push(e.reason);
    stream.answered([run('a'), run('b')]);
    expect(
      stream.take({ seq: 1, base: 0, changed: [run('b', { points: 7 })], removed: [] }, onError),
    ).toEqual([run('a'), run('b', { points: 7 })]);
    // Push 2 lost: push 3 does not follow list 1.
    expect(stream.take({ seq: 3, base: 2, changed: [], removed: [] }, onError)).toBeNull();
    expect(stream.take({ seq: 4, base: 3, changed: [], removed: [] }, onError)).toBeNull();
    expect(errors).toEqual(['out-of-step']);
    expect(stream.runs).toBeNull();
    // The resync's answer starts the stream again.
    stream.answered([run('a')]);
    expect(
      stream.take({ seq: 1, base: 0, changed: [run('a', { loaded: true })], removed: [] }, onError),
    ).toEqual([run('a', { loaded: true })]);
    // A whole list (a client that did not ask for changes, Electron's IPC) is taken as it is.
    expect(stream.take([run('z')], onError)).toEqual([run('z')]);
    expect(errors).toEqual(['out-of-step']);
  });

  test('a server feed and a page stream stay the same list over many pushes', () => {
    fc.assert(
      fc.property(runList, fc.array(runList, { maxLength: 8 }), (first, lists) => {
        const feed = new RunListFeed();
        const stream = new RunListStream();
        // Before the answer with `deltas`: whole lists.
        expect(feed.push(first)).toEqual(first);
        feed.answered(first);
        stream.answered(json(first) as RunInfo[]);
        for (const next of lists) {
          const got = stream.take(json(feed.push(next)) as RunListPush, () => {
            throw new Error('a push of the feed did not apply');
          });
          expect(got).toEqual(json(next));
        }
      }),
    );
  });
});
