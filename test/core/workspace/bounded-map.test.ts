// mapBounded: results in input order, never more calls in flight than the limit.

import { expect, test } from 'vitest';
import { mapBounded } from '../../../src/core/workspace/bounded-map';

test('mapBounded keeps the input order and at most `limit` calls in flight', async () => {
  let inFlight = 0;
  let most = 0;
  const out = await mapBounded([5, 1, 4, 2, 3, 0, 6], 3, async (x, i) => {
    inFlight++;
    most = Math.max(most, inFlight);
    // Later items finish first: the order of results must still be the input's.
    for (let k = 0; k < x; k++) await Promise.resolve();
    inFlight--;
    return `${i}:${x * 10}`;
  });
  expect(out).toEqual(['0:50', '1:10', '2:40', '3:20', '4:30', '5:0', '6:60']);
  expect(most).toBe(3);
  expect(await mapBounded([], 4, async () => 1)).toEqual([]);
});
