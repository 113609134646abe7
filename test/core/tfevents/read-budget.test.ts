// EventFileReader.readMore({maxBytes}): stops at its byte budget, says there is more, and resumes exactly.

import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { EventFileReader, EventFileWriter, readEventFile } from '../../../src/core/tfevents';
import { describe as digest, tempDir } from './helpers';

const tmp = tempDir();
afterAll(() => tmp.dispose());

test('a budgeted read stops after about maxBytes, reports more, and the sum of slices equals one full read', () => {
  const w = new EventFileWriter(tmp.dir, { fileName: 'events.out.tfevents.budget' });
  for (let s = 0; s < 4000; s++)
    w.scalars(
      s,
      [
        { tag: 'loss', value: s },
        { tag: 'kl', value: -s },
      ],
      'simple',
      1e9 + s,
    );
  w.close();
  const reader = new EventFileReader(join(tmp.dir, 'events.out.tfevents.budget'), { chunkBytes: 4096 });
  const slices: number[] = [];
  for (;;) {
    const r = reader.readMore({ maxBytes: 10_000 });
    slices.push(r.bytes);
    if (!r.more) break;
    expect(r.bytes).toBeGreaterThanOrEqual(10_000);
    expect(r.bytes).toBeLessThan(10_000 + 4096);
  }
  expect(slices.length).toBeGreaterThan(5);
  expect(reader.readMore({ maxBytes: 10_000 })).toMatchObject({ bytes: 0, more: false });
  expect(digest(reader.result(true))).toBe(
    digest(readEventFile(join(tmp.dir, 'events.out.tfevents.budget'))),
  );
  expect(reader.scalars.get('kl').length).toBe(4000);
});
