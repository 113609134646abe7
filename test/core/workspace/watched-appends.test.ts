// Watched appends to an event file: small ones read at once (synchronous tail reads), large ones on the threadpool; every point once.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';
import type { SeriesDelta } from '../../../src/shared/domain';
import { waitFor } from '../../helpers/wait-for';

let ws: Workspace | null = null;
let root: string | null = null;
afterEach(async () => {
  await ws?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  ws = null;
  root = null;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('appends one event at a time, a burst past the synchronous limit, and more single ones: each point once, in order', async () => {
  root = mkdtempSync(join(tmpdir(), 'rlwatch-appends-'));
  const runDir = join(root, 'run');
  mkdirSync(runDir);
  const writer = new EventFileWriter(runDir, { wallTime: 1_700_000_000 });
  writer.scalars(0, [{ tag: 'probe', value: 0 }], 'simple', 1_700_000_000);
  writer.flush();
  ws = createWorkspace({});
  const deltas: SeriesDelta[] = [];
  ws.on('series.appended', (d) => deltas.push(d));
  await ws.open(root);
  const pushed = (): number[] => deltas.filter((d) => d.tag === 'probe').flatMap((d) => [...d.steps]);
  await waitFor(() => pushed().length === 1, 'the first point');
  let step = 1;
  const append = (n: number): void => {
    for (let i = 0; i < n; i++, step++)
      writer.scalars(step, [{ tag: 'probe', value: step }], 'simple', 1_700_000_000 + step);
    writer.flush();
  };
  // Single events, some inside chokidar's 50 ms change throttle.
  for (let i = 0; i < 20; i++) {
    append(1);
    await sleep(i % 2 === 0 ? 5 : 30);
  }
  // ~100 KiB at once: more than a synchronous tail read takes.
  append(3000);
  for (let i = 0; i < 10; i++) {
    append(1);
    await sleep(10);
  }
  writer.close();
  await waitFor(() => pushed().length >= step, `all ${step} points`);
  expect(pushed()).toEqual(Array.from({ length: step }, (_, i) => i));
});
