// Export of data: every value of every corpus run round-trips through the CSV exactly; writes are safe.

import { parse } from 'csv-parse/sync';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { exportData, runFolderName } from '../../../src/core/export/export-run';
import { findRuns, inspectPath, readRunWhole } from '../../../src/core/inspect';
import { tempDirs } from '../../helpers/temp-dirs';

const repo = join(import.meta.dirname, '..', '..', '..');
const corpus = existsSync(join(repo, '..', 'shared', 'corpus'))
  ? join(repo, '..', 'shared', 'corpus')
  : join(repo, 'test', 'fixtures');
const groups = ['tfevents', 'wandb', 'progress'].map((g) => join(corpus, g)).filter(existsSync);

const tmp = tempDirs();

describe('CSV round trip on every corpus run', () => {
  test.each(groups)(
    '%s: each long CSV value parses back to exactly the value the reader holds',
    async (group) => {
      const out = tmp('rlwatch-export-');
      const report = await exportData(group, { out, csv: true, json: true });
      expect(report.failed).toEqual([]);
      const inspected = await inspectPath(group);
      const { root, runs } = await findRuns(group);
      expect(report.runs).toEqual(runs.map((r) => r.run));
      for (const d of runs) {
        const read = await readRunWhole(d);
        const rows = parse(readFileSync(join(out, runFolderName(d.run, root), 'metrics_long.csv')), {
          columns: true,
        }) as { run: string; tag: string; step: string; wall_time: string; value: string }[];
        const expected: [string, number, number, boolean][] = [];
        for (const tag of [...read.series.keys()].sort()) {
          for (const s of read.series.get(tag)!) {
            for (let i = 0; i < s.length; i++) expected.push([tag, s.step(i), s.value(i), !s.isDouble]);
          }
        }
        expect(rows.length).toBe(expected.length);
        rows.forEach((row, i) => {
          const [tag, step, value, f32] = expected[i]!;
          expect(row.run).toBe(d.run);
          expect(row.tag).toBe(tag);
          expect(Number(row.step)).toBe(step);
          // Exact, NaN and ±Infinity included: a float32 value parses back to the same float32.
          const parsed = f32 ? Math.fround(Number(row.value)) : Number(row.value);
          if (!Object.is(parsed, value)) expect({ tag, i, text: row.value }).toEqual({ tag, i, value });
        });
        // The same counts as `rlwatch inspect --json`.
        const scalars = inspected.runs.find((r) => r.run === d.run)!.scalars;
        for (const [tag, summary] of Object.entries(scalars)) {
          expect(rows.filter((r) => r.tag === tag).length).toBe(summary.count);
          expect(rows.filter((r) => r.tag === tag && !Number.isFinite(Number(r.value))).length).toBe(
            summary.nonFinite,
          );
        }
        // The wide CSV has one row per distinct step and a column per tag.
        const wide = parse(readFileSync(join(out, runFolderName(d.run, root), 'metrics_wide.csv')), {
          columns: true,
        }) as Record<string, string>[];
        expect(wide.length).toBe(new Set(expected.map(([, step]) => step)).size);
        const history = JSON.parse(
          readFileSync(join(out, runFolderName(d.run, root), 'training_metrics.json'), 'utf8'),
        );
        expect(history.length).toBe(wide.length);
      }
    },
  );
});

describe('writes are safe', () => {
  function smallRun(): string {
    const root = tmp('rlwatch-export-src-');
    mkdirSync(join(root, 'a'));
    mkdirSync(join(root, 'b'));
    writeFileSync(join(root, 'a', 'metrics.csv'), 'step,loss\n1,0.5\n2,nan\n');
    writeFileSync(join(root, 'b', 'metrics.csv'), 'step,loss\n1,0.25\n');
    return root;
  }

  test('an --out inside the exported folder is refused: rlwatch never writes where it reads', async () => {
    const root = smallRun();
    await expect(exportData(root, { out: join(root, 'exports'), csv: true, json: false })).rejects.toThrow(
      /never writes into the folder it reads/,
    );
    await expect(exportData(root, { out: root, csv: true, json: false })).rejects.toThrow(/inside/);
    // A name that starts with two dots is still below the folder; a link into it is too.
    await expect(exportData(root, { out: join(root, '..out'), csv: true, json: false })).rejects.toThrow(
      /inside/,
    );
    const link = join(tmp('rlwatch-export-link-'), 'to-run');
    symlinkSync(root, link);
    await expect(exportData(root, { out: join(link, 'exports'), csv: true, json: false })).rejects.toThrow(
      /inside/,
    );
    expect(existsSync(join(root, '..out'))).toBe(false);
    expect(existsSync(join(root, 'exports'))).toBe(false);
  });

  test('a file that cannot be written is reported by name, the rest is written, no temp file is left', async () => {
    const root = smallRun();
    const out = tmp('rlwatch-export-out-');
    // A folder where run a's long CSV should go: that one write fails, everything else goes on.
    mkdirSync(join(out, 'a', 'metrics_long.csv'), { recursive: true });
    const report = await exportData(root, { out, csv: true, json: true });
    expect(report.failed).toEqual([
      {
        path: join(out, 'a', 'metrics_long.csv'),
        message: expect.stringMatching(/^cannot write .*metrics_long\.csv/),
      },
    ]);
    expect(report.written.map((w) => w.path.slice(out.length + 1)).sort()).toEqual([
      'a/metrics_wide.csv',
      'a/training_metrics.json',
      'b/metrics_long.csv',
      'b/metrics_wide.csv',
      'b/training_metrics.json',
    ]);
    expect(readdirSync(join(out, 'a')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(readFileSync(join(out, 'a', 'metrics_wide.csv'), 'utf8')).toBe('step,loss\n1,0.5\n2,NaN\n');
  });

  test('runs whose names map to one folder name are written to distinct folders', async () => {
    const root = tmp('rlwatch-export-clash-');
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    mkdirSync(join(root, 'a__b'));
    writeFileSync(join(root, 'a', 'b', 'metrics.csv'), 'step,loss\n1,1\n');
    writeFileSync(join(root, 'a__b', 'metrics.csv'), 'step,loss\n1,2\n');
    const out = tmp('rlwatch-export-clash-out-');
    const report = await exportData(root, { out, csv: true, json: false });
    expect(report.written.map((w) => w.path.slice(out.length + 1)).sort()).toEqual([
      'a__b-2/metrics_long.csv',
      'a__b-2/metrics_wide.csv',
      'a__b/metrics_long.csv',
      'a__b/metrics_wide.csv',
    ]);
  });

  test('an unwritable output folder fails each file with the reason, never a throw', async () => {
    const root = smallRun();
    const out = tmp('rlwatch-export-ro-');
    writeFileSync(join(out, 'a'), 'a file where the run folder should be');
    const report = await exportData(root, { out, csv: true, json: false });
    expect(report.failed.map((f) => f.path.slice(out.length + 1))).toEqual([
      'a/metrics_long.csv',
      'a/metrics_wide.csv',
    ]);
    expect(report.written.length).toBe(2);
    chmodSync(out, 0o755);
  });
});
