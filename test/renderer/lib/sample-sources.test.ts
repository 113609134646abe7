// Following a run's sample sources: asked at once and on a timer, passed on only when the listing changed, dropped after stop.

import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { followSampleSources, type SampleSourcesUpdate } from '../../../src/renderer/src/lib/sample-sources';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const source = (rows: number) => ({
  source: 's.jsonl',
  origin: 'jsonl' as const,
  rows,
  dropped: 0,
  steps: [],
});

test('a changed listing is passed on, an unchanged one is not; an error is, once; nothing after stop', async () => {
  const answers: unknown[] = [
    { ok: true, value: [source(1)] },
    { ok: true, value: [source(1)] },
    { ok: false, error: { kind: 'not-found', message: 'no run' } },
    { ok: false, error: { kind: 'not-found', message: 'no run' } },
    { ok: true, value: [source(2)] },
    { ok: true, value: [source(3)] },
  ];
  const asked: unknown[] = [];
  const backend = {
    invoke: (channel: string, args: unknown) => {
      asked.push([channel, args]);
      return Promise.resolve(answers.shift());
    },
  };
  const seen: SampleSourcesUpdate[] = [];
  const stop = followSampleSources(backend as never, 'r', 1000, (u) => seen.push(u));
  for (let i = 0; i < 4; i++) await vi.advanceTimersByTimeAsync(1000);
  expect(asked[0]).toEqual(['samples.list', { run: 'r' }]);
  expect(seen).toEqual([
    { ok: true, sources: [source(1)] },
    { ok: false, message: 'no run' },
    { ok: true, sources: [source(2)] },
  ]);
  stop();
  await vi.advanceTimersByTimeAsync(5000);
  expect(asked).toHaveLength(5);
  expect(seen).toHaveLength(3);
});
