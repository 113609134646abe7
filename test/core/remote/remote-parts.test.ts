// Remote endpoints' pure parts: URL parsing (Origin, socket, token kept out of what is shown), backoff, renaming.

import { describe, expect, test } from 'vitest';
import { backoffDelay, DEFAULT_BACKOFF } from '../../../src/shared/backoff';
import { parseEndpointUrl } from '../../../src/core/remote/endpoint-url';
import { KeptSeries } from '../../../src/core/remote/kept-series';
import { remoteName, renameAlert, renameRun } from '../../../src/core/remote/rename';
import type { AlertInfo, RunInfo, SeriesDelta, SeriesWindow } from '../../../src/shared/domain';
import { isOwnFolderAlert, remoteRunKey, splitRunKey } from '../../../src/shared/run-key';

describe('endpoint URLs', () => {
  test('what serve prints becomes the socket URL, the Origin serve expects and a token-free shown URL', () => {
    const u = parseEndpointUrl('http://127.0.0.1:40123/?token=abc-DEF_1');
    expect(u).toEqual({
      id: '127.0.0.1:40123',
      shown: 'http://127.0.0.1:40123/',
      full: 'http://127.0.0.1:40123/?token=abc-DEF_1',
      socket: 'ws://127.0.0.1:40123/ws?token=abc-DEF_1',
      origin: 'http://127.0.0.1:40123',
    });
    expect(parseEndpointUrl('http://[::1]:7/?token=t').origin).toBe('http://[::1]:7');
  });

  test.each([
    ['no URL', 'not a url'],
    ['https', 'https://h:1/?token=t'],
    ['ws', 'ws://h:1/?token=t'],
    ['no token', 'http://h:1/'],
    ['credentials', 'http://u:p@h:1/?token=t'],
  ])('%s is a bad-request error', (_what, url) => {
    expect(() => parseEndpointUrl(url)).toThrow(expect.objectContaining({ code: 'bad-request' }));
  });
});

describe('backoff', () => {
  const at = (attempt: number, r: number): number =>
    backoffDelay(attempt, { baseMs: 100, maxMs: 1000, penaltyMaxMs: 4000, random: () => r });

  test('doubles per failure up to the cap, with half of each delay random', () => {
    expect([0, 1, 2, 3, 4, 10].map((a) => at(a, 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([0, 1, 2, 3, 4, 10].map((a) => at(a, 0.999999))).toEqual([100, 200, 400, 800, 1000, 1000]);
    // Two clients with different draws retry at different times.
    expect(at(3, 0.1)).not.toBe(at(3, 0.7));
  });

  test('an endpoint back after any outage is tried again within 5 s; one dropped for its excess backs off to 30 s', () => {
    const worst = (penalised: boolean): number =>
      Math.max(
        ...Array.from({ length: 200 }, (_, a) =>
          backoffDelay(a, { ...DEFAULT_BACKOFF, random: () => 0.999999 }, penalised),
        ),
      );
    // A frozen agent resumed after minutes was reconnected 10 s or 23 s later by chance (cap 30 s).
    expect(worst(false)).toBe(5000);
    expect(worst(true)).toBe(30_000);
    expect(backoffDelay(0, { ...DEFAULT_BACKOFF, random: () => 0 })).toBe(250);
  });
});

describe('run keys and renaming', () => {
  test('a remote key never equals a local name and splits back at the first separator', () => {
    const key = remoteRunKey('h:1', 'a/b');
    expect(key).toBe('h:1//a/b');
    expect(splitRunKey(key)).toEqual({ host: 'h:1', run: 'a/b' });
    expect(splitRunKey('a/b')).toEqual({ host: null, run: 'a/b' });
    // A run the endpoint itself got from another endpoint keeps its own key.
    expect(splitRunKey('h:1//h:2//x')).toEqual({ host: 'h:1', run: 'h:2//x' });
    expect(remoteName('h:1', 'h:2//x')).toBe(null);
  });

  test("only alerts of the own folder have an incident snapshot here (not a remote's, not a job's)", () => {
    expect(isOwnFolderAlert({ id: '[".","kl-above-target","kl"]', run: 'run1' })).toBe(true);
    expect(isOwnFolderAlert({ id: 'h:1//[".","kl"]', run: 'h:1//run1' })).toBe(false);
    expect(isOwnFolderAlert({ id: 'job:job-node-silent:j:c:1', run: 'run1' })).toBe(false);
  });

  test('runs get the key and host; alerts get their id and run prefixed the same way', () => {
    const run = { run: '.', tags: ['kl'] } as unknown as RunInfo;
    expect(renameRun('h:1', run)).toMatchObject({ run: 'h:1//.', host: 'h:1', tags: ['kl'] });
    const alert = { id: '[".","kl-above-target","kl"]', run: '.' } as AlertInfo;
    const renamed = renameAlert('h:1', alert);
    expect(renamed).toMatchObject({ id: 'h:1//[".","kl-above-target","kl"]', run: 'h:1//.' });
    expect(remoteName('h:1', renamed.id)).toBe(alert.id);
  });
});

describe("the kept copy of an endpoint's series", () => {
  const cols = (from: number, n: number, value: (i: number) => number) => ({
    steps: Float64Array.from({ length: n }, (_, i) => from + i),
    wallTimes: Float64Array.from({ length: n }, (_, i) => 1000 + from + i),
    values: Float64Array.from({ length: n }, (_, i) => value(from + i)),
  });
  const whole = (run: string, n: number, value = (i: number) => i): SeriesWindow => ({
    run,
    tag: 't',
    ...cols(0, n, value),
    length: n,
    inRange: n,
    downsampled: false,
    extent: n ? { stepMin: 0, stepMax: n - 1, wallMin: 1000, wallMax: 1000 + n - 1 } : null,
    restarts: [],
    sessions: [],
    untimed: 0,
  });
  const delta = (run: string, from: number, n: number, value = (i: number) => i): SeriesDelta => ({
    run,
    tag: 't',
    from,
    ...cols(from, n, value),
  });

  test('at most pointsPerSeries points per series (spikes kept), grown by deltas, thinned again past it', () => {
    const kept = new KeptSeries({ pointsPerSeries: 16, series: 4 });
    kept.store(whole('h//a', 1000, (i) => (i === 500 ? 99 : 0)));
    const w = kept.get('h//a', 't')!;
    expect(w.steps.length).toBeLessThanOrEqual(16);
    expect(w).toMatchObject({ length: 1000, downsampled: true });
    expect(Math.max(...w.values)).toBe(99);
    // A delta continuing the view grows it; one overlapping what is held adds only its new points.
    kept.store(whole('h//b', 10));
    expect(kept.append(delta('h//b', 10, 3))).toBe(true);
    expect(kept.append(delta('h//b', 12, 3))).toBe(true);
    const grown = kept.get('h//b', 't')!;
    expect(grown).toMatchObject({ length: 15, downsampled: false });
    expect(Array.from(grown.steps)).toEqual(Array.from({ length: 15 }, (_, i) => i));
    expect(grown.extent).toMatchObject({ stepMax: 14, wallMax: 1014 });
    // Past the bound it is thinned (its length still the remote view's).
    for (let i = 0; i < 50; i++) kept.append(delta('h//b', 15 + i, 1));
    expect(kept.get('h//b', 't')!.steps.length).toBeLessThanOrEqual(16);
    expect(kept.get('h//b', 't')).toMatchObject({ length: 65, downsampled: true });
    expect(kept.get('h//b', 't')!.steps.at(-1)).toBe(64);
    // A delta past a gap is refused: the copy needs a fresh window.
    expect(kept.append(delta('h//b', 2000, 1))).toBe(false);
  });

  test('at most `series` series: the least recently stored goes; a range is answered from the copy', () => {
    const kept = new KeptSeries({ pointsPerSeries: 100, series: 2 });
    kept.store(whole('h//a', 10));
    kept.store(whole('h//b', 10));
    kept.store(whole('h//c', 10));
    expect([kept.size, kept.has('h//a', 't'), kept.has('h//c', 't')]).toEqual([2, false, true]);
    const range = kept.get('h//b', 't', { xMin: 3, xMax: 5 })!;
    // The points in range and one neighbour each side, as a live window gives.
    expect(Array.from(range.steps)).toEqual([2, 3, 4, 5, 6]);
    expect(range.inRange).toBe(3);
    expect(Array.from(kept.get('h//b', 't', { xMin: 1004, xMax: 1005, axis: 'wall' })!.steps)).toEqual([
      3, 4, 5, 6,
    ]);
    // A coarser answer for the same view does not replace a finer copy.
    kept.store({
      ...whole('h//b', 10),
      steps: new Float64Array([0, 9]),
      wallTimes: new Float64Array(2),
      values: new Float64Array(2),
    });
    expect(kept.get('h//b', 't')!.steps.length).toBe(10);
    kept.retainRuns(new Set(['h//c']));
    expect(kept.keys()).toEqual([{ run: 'h//c', tag: 't' }]);
  });
});
