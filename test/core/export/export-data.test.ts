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
import { findRuns, readRunWhole } from '../../../src/core/inspect';
import type { ScalarSeries } from '../../../src/core/series/scalar-series';
import { bestFormatParts, type SourceFormatName } from '../../../src/shared/formats';
import { tempDirs } from '../../helpers/temp-dirs';

const repo = join(import.meta.dirname, '..', '..', '..');
const corpus = existsSync(join(repo, '..', 'shared', 'corpus'))
  ? join(repo, '..', 'shared', 'corpus')
  : join(repo, 'test', 'fixtures');
const groups = ['tfevents', 'wandb', 'progress'].map((g) => join(corpus, g)).filter(existsSync);

const tmp = tempDirs();

describe('CSV round trip on every corpus run', () => {
  test.each(groups)(
    '%s: every point of every session is in the long CSV with its session, exactly (values and wall times)',
    async (group) => {
      const out = tmp('rlwatch-export-');
      const report = await exportData(group, { out, csv: true, json: true });
      expect(report.failed).toEqual([]);
      const { root, runs } = await findRuns(group);
      expect(report.runs).toEqual(runs.map((r) => r.run));
      for (const d of runs) {
        const formats = new Map<ScalarSeries, SourceFormatName>();
        const read = await readRunWhole(d, (s, format) => {
          formats.set(s, format);
          return s;
        });
        type Row = {
          run: string;
          tag: string;
          step: string;
          wall_time: string;
          value: string;
          session: string;
        };
        const rows = parse(readFileSync(join(out, runFolderName(d.run, root), 'metrics_long.csv')), {
          columns: true,
        }) as Row[];
        for (const row of rows) expect(row.run).toBe(d.run);
        // Per tag: the shown format's files (one format per tag), every point of them — a restart hides none.
        const familyOf = (tag: string): string =>
          read.series.has(tag) ? tag : tag.replace(/ \([^()]*\)$/, '');
        for (const [tag, parts] of read.series) {
          const shown = bestFormatParts(parts, (s) => formats.get(s)!);
          const key = (step: number, wall: number, value: number): string =>
            `${step}|${wall}|${Object.is(value, -0) ? '-0' : value}`;
          const expected: string[] = [];
          for (const s of shown)
            for (let i = 0; i < s.length; i++) expected.push(key(s.step(i), s.wallTime(i), s.value(i)));
          const f32 = shown.every((s) => !s.isDouble);
          const got = rows
            .filter((r) => familyOf(r.tag) === tag)
            .map((r) => {
              // Exact, NaN and ±Infinity included: a float32 value parses back to the same float32.
              const v = f32 ? Math.fround(Number(r.value)) : Number(r.value);
              return key(Number(r.step), r.wall_time === '' ? Number.NaN : Number(r.wall_time), v);
            });
          expect(got.sort()).toEqual(expected.sort());
        }
        // Sessions: within one shown tag, in write order; a new session exactly where the step went back.
        const byTag = new Map<string, Row[]>();
        for (const r of rows) byTag.set(r.tag, [...(byTag.get(r.tag) ?? []), r]);
        for (const [tag, list] of byTag) {
          for (let i = 1; i < list.length; i++) {
            const back = Number(list[i]!.step) < Number(list[i - 1]!.step);
            const next = Number(list[i]!.session) === Number(list[i - 1]!.session) + 1;
            const same = list[i]!.session === list[i - 1]!.session;
            if (back ? !next : !same)
              expect({ tag, i, row: list[i], before: list[i - 1] }).toBe(
                'one session per run of rising steps',
              );
          }
          expect(list[0]!.session).toBe('1');
        }
        // The wide CSV and the JSON: one row per session and step, never mixing sessions.
        const wide = parse(readFileSync(join(out, runFolderName(d.run, root), 'metrics_wide.csv')), {
          columns: true,
        }) as Record<string, string>[];
        expect(wide.length).toBe(new Set(rows.map((r) => `${r.session}|${Number(r.step)}`)).size);
        const history = JSON.parse(
          readFileSync(join(out, runFolderName(d.run, root), 'training_metrics.json'), 'utf8'),
        ) as { step: number; session: number }[];
        expect(history.map((h) => [h.session, h.step])).toEqual(
          wide.map((w) => [Number(w.session), Number(w.step)]),
        );
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
    expect(readFileSync(join(out, 'a', 'metrics_wide.csv'), 'utf8')).toBe(
      'step,session,loss\n1,1,0.5\n2,1,NaN\n',
    );
  });

  test('run names and tags a spreadsheet would run as formulas are text in both CSVs; numbers stay numbers', async () => {
    const root = tmp('rlwatch-export-formula-');
    mkdirSync(join(root, '=1+2'));
    writeFileSync(
      join(root, '=1+2', 'metrics.jsonl'),
      '{"step": 1, "=1+2": -0.43, "@SUM(A1)": 2, "-2+3": 1, "-0.5": 3, "loss": 0.5}\n',
    );
    const out = tmp('rlwatch-export-formula-out-');
    const report = await exportData(root, { out, csv: true, json: false });
    expect(report.failed).toEqual([]);
    const [folder] = readdirSync(out);
    expect(readFileSync(join(out, folder!, 'metrics_long.csv'), 'utf8')).toBe(
      [
        'run,tag,step,wall_time,value,session',
        "'=1+2,-0.5,1,,3,1",
        "'=1+2,'-2+3,1,,1,1",
        "'=1+2,'=1+2,1,,-0.43,1",
        "'=1+2,'@SUM(A1),1,,2,1",
        "'=1+2,loss,1,,0.5,1",
        '',
      ].join('\n'),
    );
    expect(readFileSync(join(out, folder!, 'metrics_wide.csv'), 'utf8')).toBe(
      "step,session,-0.5,'-2+3,'=1+2,'@SUM(A1),loss\n1,1,3,1,-0.43,2,0.5\n",
    );
  });

  test('a folder exported on its own names its run by the folder, in the folder name and in the rows', async () => {
    const root = join(tmp('rlwatch-export-own-'), 'ppo_cartpole');
    mkdirSync(root);
    writeFileSync(join(root, 'metrics.csv'), 'step,loss\n1,1\n');
    const out = tmp('rlwatch-export-own-out-');
    const report = await exportData(root, { out, csv: true, json: false });
    expect(report.runs).toEqual(['ppo_cartpole']);
    expect(readFileSync(join(out, 'ppo_cartpole', 'metrics_long.csv'), 'utf8')).toBe(
      'run,tag,step,wall_time,value,session\nppo_cartpole,loss,1,,1,1\n',
    );
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
