// Watched appends to an event file: small ones read at once (synchronous tail reads), large ones on the threadpool; every point
// once; each append read once.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import { createWorkspace, discover } from '../../../src/core/workspace/create';
import { createSource } from '../../../src/core/sources/registry';
import { Workspace as WorkspaceClass } from '../../../src/core/workspace/workspace';
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

test("an append fs.watch reports is read once: chokidar's later change and its trailing read read nothing again", async () => {
  root = mkdtempSync(join(tmpdir(), 'rlwatch-appends-'));
  const runDir = join(root, 'run');
  mkdirSync(runDir);
  const writer = new EventFileWriter(runDir, { wallTime: 1_700_000_000 });
  writer.scalars(0, [{ tag: 'probe', value: 0 }], 'simple', 1_700_000_000);
  writer.flush();
  let reads = 0;
  ws = new WorkspaceClass({
    discover,
    // No sweep: every read is one a file event asked for.
    sweepMs: 3_600_000,
    readMountInfo: async () => '',
    createSource: (path, format, opts) => {
      const source = createSource(path, format, opts);
      const readMore = source.readMore.bind(source);
      source.readMore = (o) => {
        reads++;
        return readMore(o);
      };
      return source;
    },
  });
  const steps: number[] = [];
  ws.on('series.appended', (d) => steps.push(...d.steps));
  await ws.open(root);
  await waitFor(() => steps.length === 1, 'the first point');
  for (let step = 1; step <= 3; step++) {
    // The last append's events (chokidar's stat, the 55 ms trailing read) are over.
    await sleep(300);
    const before = reads;
    writer.scalars(step, [{ tag: 'probe', value: step }], 'simple', 1_700_000_000 + step);
    writer.flush();
    await waitFor(() => steps.length === step + 1, `point ${step}`);
    await sleep(300);
    expect(reads - before).toBe(1);
  }
  writer.close();
  expect(steps).toEqual([0, 1, 2, 3]);
});

test("an append to a linked event file (its folder's fs.watch does not see it) is read at chokidar's change", async () => {
  root = mkdtempSync(join(tmpdir(), 'rlwatch-appends-'));
  // Inside the opened folder (a link out of it is not read), in a folder discovery skips and nothing watches.
  const elsewhere = join(root, 'runs', 'node_modules');
  const runDir = join(root, 'runs', 'run');
  mkdirSync(elsewhere, { recursive: true });
  mkdirSync(runDir);
  const writer = new EventFileWriter(elsewhere, { wallTime: 1_700_000_000 });
  writer.scalars(0, [{ tag: 'probe', value: 0 }], 'simple', 1_700_000_000);
  writer.flush();
  symlinkSync(writer.path, join(runDir, basename(writer.path)));
  // No sweep: the append reaches the view through a file event or not at all.
  ws = createWorkspace({ sweepMs: 3_600_000 });
  const steps: number[] = [];
  ws.on('series.appended', (d) => steps.push(...d.steps));
  await ws.open(join(root, 'runs'));
  await waitFor(() => steps.length === 1, 'the first point');
  await sleep(300);
  writer.scalars(1, [{ tag: 'probe', value: 1 }], 'simple', 1_700_000_001);
  writer.flush();
  await waitFor(() => steps.length === 2, 'the appended point', 5000);
  writer.close();
  expect(steps).toEqual([0, 1]);
});
