// `export --watch`: a new round after the run's files change, never sooner than the interval, none without a change.

import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { sourcesFingerprint, watchExport, type WatchClock } from '../../../src/core/export/export-watch';

const root = mkdtempSync(join(tmpdir(), 'rlwatch-export-watch-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const rows = (from: number, n: number): string =>
  Array.from({ length: n }, (_, i) => `${from + i},${1 / (1 + from + i)},${Math.sin(from + i)}\n`).join('');

test('a change right after a round waits for the interval; a later change makes a round at the next poll', async () => {
  const run = join(root, 'runs', 'a');
  mkdirSync(run, { recursive: true });
  const csv = join(run, 'training_metrics.csv');
  writeFileSync(csv, 'step,loss,reward\n' + rows(0, 20));
  const out = join(root, 'out');
  const stop = new AbortController();
  // Fake time: a sleep advances it at once, then lets the test act at that moment.
  let now = 0;
  let appendedLate = false;
  const clock: WatchClock = {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
      if (now >= 75_000 && !appendedLate) {
        appendedLate = true;
        appendFileSync(csv, rows(40, 20));
      }
      await new Promise((res) => setImmediate(res));
    },
  };
  const rounds: { at: number; written: string[]; png: Buffer }[] = [];
  const last = await watchExport(
    join(root, 'runs'),
    { out, csv: true, json: false, png: true, figure: { width: 320, height: 180 } },
    {
      everyMs: 30_000,
      pollMs: 1_000,
      signal: stop.signal,
      clock,
      onRound: (report, round) => {
        rounds.push({
          at: now,
          written: report.written.map((w) => w.path.slice(out.length + 1)).sort(),
          png: readFileSync(join(out, 'a', 'training_progress.png')),
        });
        if (round === 1) appendFileSync(csv, rows(20, 20));
        if (round === 3) stop.abort();
      },
    },
  );
  expect(rounds.map((r) => r.at)).toEqual([0, 30_000, 75_000]);
  expect(rounds[0]!.written).toContain('a/training_progress.png');
  expect(rounds[0]!.written).toContain('a/metrics_long.csv');
  // Each round drew the data it read: the figures changed as the run grew.
  expect(rounds[1]!.png.equals(rounds[0]!.png)).toBe(false);
  expect(rounds[2]!.png.equals(rounds[1]!.png)).toBe(false);
  expect(last?.failed).toEqual([]);
  expect(
    readFileSync(join(out, 'a', 'metrics_long.csv'), 'utf8')
      .trim()
      .split('\n'),
  ).toHaveLength(1 + 60 * 2);
});

test('the fingerprint changes when a file grows, appears or goes, and not otherwise', async () => {
  const run = join(root, 'fp');
  mkdirSync(run, { recursive: true });
  writeFileSync(join(run, 'metrics.jsonl'), '{"step":0,"loss":1}\n');
  const a = await sourcesFingerprint(run);
  expect(await sourcesFingerprint(run)).toBe(a);
  appendFileSync(join(run, 'metrics.jsonl'), '{"step":1,"loss":0.5}\n');
  const b = await sourcesFingerprint(run);
  expect(b).not.toBe(a);
  writeFileSync(join(run, 'training_metrics.csv'), 'step,loss\n0,1\n');
  const c = await sourcesFingerprint(run);
  expect(c).not.toBe(b);
  rmSync(join(run, 'training_metrics.csv'));
  expect(await sourcesFingerprint(run)).toBe(b);
});
