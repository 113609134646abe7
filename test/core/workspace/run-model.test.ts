// The run model on real files: restarts, one format per tag, truncation, deletion, rotation, progress, notices.

import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import { createSource } from '../../../src/core/sources/registry';
import { createWorkspace, discover } from '../../../src/core/workspace/create';
import { Workspace } from '../../../src/core/workspace/workspace';
import type { AppNotice, LoadProgress, SeriesDelta, SeriesReset } from '../../../src/shared/domain';
import { waitFor } from '../../helpers/wait-for';

let ws: Workspace | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await ws?.close();
  ws = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'rlwatch-rm-'));
  dirs.push(d);
  return d;
}

const range = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, i) => a + i);

function writeSteps(w: EventFileWriter, steps: number[], tag = 'loss', wall0 = 1_700_000_000): void {
  for (const s of steps) w.scalars(s, [{ tag, value: s / 10 }], 'simple', wall0 + s);
  w.flush();
}

function record(w: Workspace): { deltas: SeriesDelta[]; resets: SeriesReset[]; notices: AppNotice[] } {
  const out = { deltas: [] as SeriesDelta[], resets: [] as SeriesReset[], notices: [] as AppNotice[] };
  w.on('series.appended', (d) => out.deltas.push(d));
  w.on('series.reset', (r) => out.resets.push(r));
  w.on('app.notice', (n) => out.notices.push(n));
  return out;
}

const windowSteps = (run: string, tag: string): number[] => [
  ...ws!.getWindow(run, tag, { pixels: 10_000 })!.steps,
];

describe('restarts', () => {
  test('a live event file going 0..100 then restarting at 60: reset, delta from the cut, a mark, no zig-zag', async () => {
    const dir = tmp();
    const w = new EventFileWriter(dir, { fileName: 'events.out.tfevents.1.host' });
    writeSteps(w, range(0, 100));
    ws = createWorkspace({ sweepMs: 30 });
    const rec = record(ws);
    await ws.open(dir);
    expect(rec.deltas.flatMap((d) => [...d.steps])).toEqual(range(0, 100));
    expect(rec.resets).toEqual([]);

    writeSteps(w, range(60, 80));
    await waitFor(
      () => ws!.getWindow(basename(dir), 'loss', { pixels: 1000 })!.length === 81,
      'restarted points',
    );
    w.close();
    expect(rec.resets).toEqual([{ run: basename(dir), tag: 'loss', reason: 'restart' }]);
    const last = rec.deltas[rec.deltas.length - 1]!;
    expect(last.from).toBe(60);
    expect([...last.steps]).toEqual(range(60, 80));
    const win = ws.getWindow(basename(dir), 'loss', { pixels: 1000 })!;
    expect([...win.steps]).toEqual(range(0, 80));
    expect(win.restarts).toEqual([{ step: 60, wallTime: 1_700_000_060, dropped: 41 }]);
    expect(ws.listRuns()[0]!.restarts).toBe(1);
  });

  test('two event files, the second starting lower: concatenated in file-name order, the overlap dropped', async () => {
    const dir = tmp();
    const a = new EventFileWriter(dir, { fileName: 'events.out.tfevents.100.host' });
    writeSteps(a, range(0, 50));
    a.close();
    const b = new EventFileWriter(dir, { fileName: 'events.out.tfevents.200.host' });
    writeSteps(b, range(40, 60), 'loss', 1_700_001_000);
    b.close();
    ws = createWorkspace({ watch: false });
    const rec = record(ws);
    await ws.open(dir);
    expect(windowSteps(basename(dir), 'loss')).toEqual(range(0, 60));
    const win = ws.getWindow(basename(dir), 'loss', { pixels: 1000 })!;
    expect(win.restarts).toEqual([{ step: 40, wallTime: 1_700_001_040, dropped: 11 }]);
    // The second file's values, not the first's, from step 40 on.
    expect(win.wallTimes[45]).toBe(1_700_001_045);
    // Read cold: consumers never saw the dropped points, so no reset.
    expect(rec.resets).toEqual([]);
    expect(rec.deltas.flatMap((d) => [...d.steps])).toEqual(range(0, 60));
    const info = ws.listRuns()[0]!;
    expect(info.restarts).toBe(1);
    expect(info.points).toBe(61);
    expect(info.loaded).toBe(true);
  });
});

describe('one format per tag', () => {
  test('a tag in both an event file and a CSV (as the demo writes) is shown once, from the event file', async () => {
    const dir = tmp();
    const w = new EventFileWriter(dir, { fileName: 'events.out.tfevents.1.host' });
    for (let s = 0; s < 20; s++) w.scalars(s, [{ tag: 'reward', value: s }], 'simple', 1_700_000_000 + s);
    w.close();
    writeFileSync(
      join(dir, 'training_metrics.csv'),
      'step,timestamp,reward,temperature\n' +
        range(0, 19)
          .map((s) => `${s},${1_700_000_000 + s},${s + 0.5},${s * 2}`)
          .join('\n') +
        '\n',
    );
    ws = createWorkspace({ watch: false });
    const rec = record(ws);
    await ws.open(dir);
    const win = ws.getWindow(basename(dir), 'reward', { pixels: 1000 })!;
    expect(win.length).toBe(20);
    expect([...win.values]).toEqual(range(0, 19));
    expect(win.restarts).toEqual([]);
    // A tag only the CSV has comes from the CSV.
    expect(ws.getWindow(basename(dir), 'temperature', { pixels: 1000 })!.length).toBe(20);
    expect(rec.deltas.filter((d) => d.tag === 'reward').flatMap((d) => [...d.values])).toEqual(range(0, 19));
    const info = ws.listRuns()[0]!;
    expect(info.restarts).toBe(0);
    expect(info.points).toBe(40);
    expect(info.tags).toEqual(['reward', 'temperature']);
  });
});

/** A logger's whole CSV table of `step,loss` for steps 0..n (what `open("w")` rewrites each time). */
const lossTable = (n: number): string =>
  'step,loss\n' +
  range(0, n)
    .map((s) => `${s},${s / 3}`)
    .join('\n') +
  '\n';

describe('truncation, deletion, rotation', () => {
  test('a CSV rewritten shorter by a restarted trainer: its earlier contents stay as session 1, the new ones are session 2', async () => {
    const dir = tmp();
    const csv = join(dir, 'metrics.csv');
    writeFileSync(
      csv,
      'step,loss\n' +
        range(0, 9)
          .map((s) => `${s},${s}`)
          .join('\n') +
        '\n',
    );
    ws = createWorkspace({ sweepMs: 30 });
    const rec = record(ws);
    await ws.open(dir);
    expect(windowSteps(basename(dir), 'loss')).toEqual(range(0, 9));
    truncateSync(csv, 0);
    appendFileSync(csv, 'step,loss\n0,100\n1,101\n');
    await waitFor(
      () => rec.resets.length > 0 && ws!.getWindow(basename(dir), 'loss', { pixels: 9 })!.length === 2,
      'reset',
    );
    // The steps went back: a restart, as for a new event file; the view is the new session.
    expect(rec.resets).toEqual([{ run: basename(dir), tag: 'loss', reason: 'restart' }]);
    const last = rec.deltas[rec.deltas.length - 1]!;
    expect(last.from).toBe(0);
    expect([...last.values]).toEqual([100, 101]);
    const w = ws.getWindow(basename(dir), 'loss', { pixels: 9 })!;
    expect([...w.values]).toEqual([100, 101]);
    expect(w.sessions.map((x) => x.points)).toEqual([10, 2]);
    expect([...ws.getWindow(basename(dir), 'loss', { pixels: 99, session: 1 })!.values]).toEqual(range(0, 9));
    const run = ws.listRuns()[0]!;
    expect(run.restarts).toBe(1);
    expect(run.sources.map((s) => [s.dead, s.rewritten ?? false])).toEqual([
      [true, true],
      [false, false],
    ]);
  });

  // Caught half-written: the rows so far repeat the old ones, so each cut is undecided (kept, shown as a session)
  // until the whole table is there; then every earlier contents is the same table, dropped.
  test.each([
    ['a CSV rewritten whole with the same rows and more (a logger dumping its table) is no session', [3]],
    [
      'a CSV caught half-written twice, then whole: both earlier contents are the same table, no session',
      [3, 1],
    ],
  ])('%s', async (_name, cuts) => {
    const dir = tmp();
    const csv = join(dir, 'metrics.csv');
    writeFileSync(csv, lossTable(9));
    ws = createWorkspace({ sweepMs: 30 });
    await ws.open(dir);
    for (const [k, rows] of cuts.entries()) {
      writeFileSync(csv, lossTable(rows));
      await waitFor(() => ws!.listRuns()[0]!.sources.length === k + 2, `cut ${k + 1} seen`, 5000);
    }
    writeFileSync(csv, lossTable(12));
    await waitFor(() => windowSteps(basename(dir), 'loss').length === 13, 'the whole table shown', 5000);
    const run = ws.listRuns()[0]!;
    expect(run.sources.map((s) => s.dead)).toEqual([false]);
    expect(run.restarts).toBe(0);
    expect(ws.getWindow(basename(dir), 'loss', { pixels: 99 })!.sessions).toHaveLength(1);
    expect(ws.storedStats().points).toBe(13);
  });

  test('an event file truncated and rewritten in place: the earlier contents stay as a session', async () => {
    const dir = tmp();
    const w = new EventFileWriter(dir, { fileName: 'events.out.tfevents.1.host' });
    writeSteps(w, range(0, 30));
    w.close();
    ws = createWorkspace({ sweepMs: 30 });
    const rec = record(ws);
    await ws.open(dir);
    truncateSync(w.path, 0);
    const again = new EventFileWriter(dir, { fileName: 'events.out.tfevents.1.host' });
    writeSteps(again, range(0, 4), 'loss', 1_800_000_000);
    again.close();
    await waitFor(
      () => rec.resets.length > 0 && ws!.getWindow(basename(dir), 'loss', { pixels: 99 })!.length === 5,
      'reset',
    );
    expect(rec.resets).toEqual([{ run: basename(dir), tag: 'loss', reason: 'restart' }]);
    const win = ws.getWindow(basename(dir), 'loss', { pixels: 99 })!;
    expect([...win.wallTimes]).toEqual(range(0, 4).map((s) => 1_800_000_000 + s));
    expect(win.sessions.map((x) => x.points)).toEqual([31, 5]);
    expect(ws.listRuns()[0]!.sources.map((s) => s.dead)).toEqual([true, false]);
  });

  test('a deleted file becomes a dead source and its data stays', async () => {
    const dir = tmp();
    const w = new EventFileWriter(dir, { fileName: 'events.out.tfevents.1.host' });
    writeSteps(w, range(0, 9));
    w.close();
    ws = createWorkspace({ sweepMs: 30 });
    await ws.open(dir);
    unlinkSync(w.path);
    await waitFor(() => ws!.listRuns()[0]!.sources[0]!.dead, 'dead source');
    const info = ws.listRuns()[0]!;
    expect(info.sources).toEqual([
      { file: 'events.out.tfevents.1.host', format: 'tfevents', records: 11, errors: [], dead: true },
    ]);
    expect(windowSteps(basename(dir), 'loss')).toEqual(range(0, 9));
  });

  test('a rotated file (renamed away, a new file at its path) keeps the old data dead; the new file is a new source', async () => {
    const dir = tmp();
    const path = join(dir, 'metrics.jsonl');
    writeFileSync(
      path,
      range(0, 9)
        .map((s) => JSON.stringify({ step: s, loss: s }))
        .join('\n') + '\n',
    );
    ws = createWorkspace({ sweepMs: 30 });
    const rec = record(ws);
    await ws.open(dir);
    renameSync(path, join(dir, 'metrics.jsonl.1'));
    writeFileSync(
      path,
      range(10, 14)
        .map((s) => JSON.stringify({ step: s, loss: -s }))
        .join('\n') + '\n',
    );
    await waitFor(() => windowSteps(basename(dir), 'loss').length === 15, 'rotated points');
    expect(windowSteps(basename(dir), 'loss')).toEqual(range(0, 14));
    const sources = ws.listRuns()[0]!.sources;
    expect(sources.map((s) => [s.file, s.dead, s.records])).toEqual([
      ['metrics.jsonl', true, 10],
      ['metrics.jsonl', false, 5],
    ]);
    // Continuing steps: an append, not a reset.
    expect(rec.resets).toEqual([]);
    expect(rec.deltas.flatMap((d) => [...d.steps])).toEqual(range(0, 14));
  });
  test('a rotated file renamed to another recognised name is not read twice', async () => {
    const dir = tmp();
    const path = join(dir, 'metrics.jsonl');
    writeFileSync(
      path,
      range(0, 9)
        .map((s) => JSON.stringify({ step: s, loss: s }))
        .join('\n') + '\n',
    );
    ws = createWorkspace({ sweepMs: 30 });
    await ws.open(dir);
    // Rotated once read (open may return before a run's first read: a rename before it is no rotation, and the old
    // points are rightly the renamed file's own source).
    await waitFor(() => windowSteps(basename(dir), 'loss').length === 10, 'first read');
    renameSync(path, join(dir, 'metrics-old.jsonl'));
    writeFileSync(
      path,
      range(10, 14)
        .map((s) => JSON.stringify({ step: s, loss: -s }))
        .join('\n') + '\n',
    );
    await waitFor(() => windowSteps(basename(dir), 'loss').length === 15, 'rotated points');
    // Give discovery time to see the renamed file.
    await new Promise((r) => setTimeout(r, 400));
    expect(windowSteps(basename(dir), 'loss')).toEqual(range(0, 14));
    expect(ws.listRuns()[0]!.sources.map((s) => [s.file, s.dead])).toEqual([
      ['metrics.jsonl', true],
      ['metrics.jsonl', false],
    ]);
  });
});

describe('progressive load', () => {
  test('runs are listed with the first one read, then the others read one at a time by name, with progress up to done', async () => {
    const root = tmp();
    for (const name of ['c', 'a', 'b']) {
      mkdirSync(join(root, name));
      const w = new EventFileWriter(join(root, name), { fileName: 'events.out.tfevents.1.host' });
      writeSteps(w, range(0, 99), name);
      w.close();
    }
    ws = createWorkspace({ watch: false });
    const progress: LoadProgress[] = [];
    const firstList: boolean[][] = [];
    const order: string[] = [];
    ws.on('load.progress', (p) => progress.push(p));
    ws.on('runs.changed', (r) => firstList.push(r.map((x) => x.loaded)));
    ws.on('series.appended', (d) => order.push(d.run));
    await ws.open(root);
    // A quick first read is waited for (a slow one is not: first-screen.test.ts).
    expect(firstList[0]).toEqual([true, false, false]);
    expect(order).toEqual(['a', 'b', 'c']);
    expect(progress[0]!.phase).toBe('discovering');
    const done = progress[progress.length - 1]!;
    expect(done.phase).toBe('done');
    expect(done.runsFound).toBe(3);
    expect(done.runsLoaded).toBe(3);
    expect(done.bytesTotal).toBeGreaterThan(0);
    expect(done.bytesRead).toBe(done.bytesTotal);
    expect(ws.listRuns().map((r) => r.loaded)).toEqual([true, true, true]);
  });

  test("open(…, {until: 'first-run'}) resolves with the first run read; whenLoaded() with all", async () => {
    const root = tmp();
    for (const name of ['a', 'b']) {
      mkdirSync(join(root, name));
      writeFileSync(join(root, name, 'metrics.csv'), 'step,x\n1,1\n2,2\n');
    }
    ws = createWorkspace({ watch: false });
    await ws.open(root, { until: 'first-run' });
    expect(ws.listRuns()[0]!.loaded).toBe(true);
    await ws.whenLoaded();
    expect(ws.listRuns().map((r) => r.loaded)).toEqual([true, true]);
  });

  test('the first run read is announced at once, not after the throttle that follows listing the folder', async () => {
    const root = tmp();
    for (const name of ['a', 'b', 'c']) {
      mkdirSync(join(root, name));
      writeFileSync(join(root, name, 'metrics.csv'), 'step,x\n1,1\n2,2\n');
    }
    ws = createWorkspace({ watch: false });
    const lists: { run: string; loaded: boolean; tags: string[] }[][] = [];
    ws.on('runs.changed', (r) => lists.push(r.map((x) => ({ run: x.run, loaded: x.loaded, tags: x.tags }))));
    await ws.open(root, { until: 'first-run' });
    // The page shows the first run's charts from what runs.changed told it: that must already say it is read. The
    // first list waits for that read (a quick one), so the page gets one list of every run, not two (#36).
    expect(lists).toHaveLength(1);
    expect(lists[0]!.map((r) => r.loaded)).toEqual([true, false, false]);
    expect(lists[0]![0]).toEqual({ run: 'a', loaded: true, tags: ['x'] });
    await ws.whenLoaded();
  });

  test('a big event file is read in slices with a pause (the event loop runs) between them', async () => {
    const dir = tmp();
    const w = new EventFileWriter(dir, { fileName: 'events.out.tfevents.1.host' });
    const tags = Array.from({ length: 50 }, (_, i) => `metric/number_${i}`);
    for (let s = 0; s < 3000; s++)
      w.scalars(
        s,
        tags.map((tag, i) => ({ tag, value: s * i })),
        'simple',
        1_700_000_000 + s,
      );
    w.close();
    const readAtPause: number[] = [];
    const source = createSource(w.path, 'tfevents', {
      sliceBytes: 256 * 1024,
      pause: async () => {
        readAtPause.push(source.bytesRead!);
        await new Promise((r) => setImmediate(r));
      },
    });
    await source.readMore();
    const size = source.bytesRead!;
    expect(size).toBeGreaterThan(3 * 256 * 1024);
    // Never more than a slice (plus the 1 MiB read chunk that crosses it) between two pauses.
    expect(readAtPause.length).toBeGreaterThanOrEqual(3);
    const marks = [0, ...readAtPause, size];
    for (let i = 1; i < marks.length; i++) expect(marks[i]! - marks[i - 1]!).toBeLessThanOrEqual(1 << 20);
    expect(source.series.get('metric/number_7').length).toBe(3000);
  });
});

describe('per-folder errors', () => {
  test('discovery problems become one notice per folder and the rest still loads', async () => {
    const root = tmp();
    writeFileSync(join(root, 'metrics.csv'), 'step,x\n1,1\n');
    // Tests run as root, where chmod 000 does not stop reads: the unreadable folder is injected.
    ws = new Workspace({
      discover: async (r) => {
        const found = await discover(r);
        return {
          runs: found.runs,
          errors: [
            ...found.errors,
            { kind: 'io', path: 'locked', message: "EACCES: permission denied, scandir 'locked'" },
          ],
        };
      },
      createSource,
      watch: false,
    });
    const rec = record(ws);
    await ws.open(root);
    expect(rec.notices).toEqual([
      { level: 'warning', message: "cannot read folder locked: EACCES: permission denied, scandir 'locked'" },
    ]);
    expect(ws.listRuns().map((r) => r.run)).toEqual([basename(root)]);
  });

  test('a symlink loop in the folder is a notice, not a hang or a crash', async () => {
    const root = tmp();
    mkdirSync(join(root, 'run'));
    writeFileSync(join(root, 'run', 'metrics.csv'), 'step,x\n1,1\n');
    symlinkSync(root, join(root, 'run', 'loop'));
    ws = createWorkspace({ watch: false });
    const rec = record(ws);
    await ws.open(root);
    expect(rec.notices.map((n) => n.message)).toEqual([
      expect.stringMatching(/^skipped run\/loop: symbolic link loop/),
    ]);
    expect(ws.listRuns().map((r) => r.run)).toEqual(['run']);
  });

  test('a discover that throws is an error notice and an empty workspace', async () => {
    ws = new Workspace({
      discover: () => Promise.reject(new Error('boom')),
      createSource,
      watch: false,
    });
    const rec = record(ws);
    await ws.open(tmp());
    expect(rec.notices.map((n) => n.level)).toEqual(['error']);
    expect(rec.notices[0]!.message).toMatch(/boom/);
    expect(ws.listRuns()).toEqual([]);
  });
});
