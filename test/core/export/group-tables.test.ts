// `export --groups --csv`: each seed group's tidy per-step file (groups/GROUP/steps.csv: tag, step, mean, lower, upper, n,
// band) that Python's csv module reads into floats with no parsing, its numbers the group's mean and band.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { exportData, type ExportReport } from '../../../src/core/export/export-run';
import { EventFileWriter } from '../../../src/core/tfevents/writer';

const REWARD = 'rollout/ep_rew_mean';
/** Seed s of config lr: a line in the step, so the band's values between logged steps are exact. */
const reward = (lr: number, seed: number, step: number): number =>
  ((seed + 1) * step) / 100 + seed + (lr === 0.1 ? 0 : -50);

/** Python's csv module reads the file; every number column goes through float() as it is. */
const READ = String.raw`
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print(json.dumps({"header": list(rows[0].keys()), "rows": [
  {"tag": r["tag"], "band": r["band"], **{k: float(r[k]) for k in ("step", "mean", "lower", "upper", "n")}} for r in rows]}))
`;

interface Row {
  tag: string;
  band: string;
  step: number;
  mean: number;
  lower: number;
  upper: number;
  n: number;
}

describe('export --groups --csv', () => {
  let root: string;
  let out: string;
  let report: ExportReport;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'rlwatch-group-tables-'));
    out = mkdtempSync(join(tmpdir(), 'rlwatch-group-tables-out-'));
    for (const lr of [0.1, 0.01])
      for (const seed of [0, 1, 2]) {
        const dir = join(root, `lr${lr}_seed${seed}`);
        mkdirSync(dir);
        writeFileSync(join(dir, 'config.json'), JSON.stringify({ lr, seed }));
        const w = new EventFileWriter(dir, { wallTime: 1_700_000_000 });
        for (let step = 0; step <= 500; step += 10)
          w.scalars(
            step,
            [
              { tag: REWARD, value: reward(lr, seed, step) },
              { tag: 'train/loss', value: -seed - step / 1000 },
            ],
            'tensor-double',
            1_700_000_000 + step,
          );
        w.close();
      }
    report = await exportData(root, { out, csv: true, json: false, groups: { band: 'minmax', iqm: false } });
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  });

  test('a steps.csv per group, without any figure format; no figure drawn', () => {
    const written = report.written
      .map((w) => w.path.slice(out.length + 1))
      .filter((p) => p.startsWith('groups/'));
    expect(written.sort()).toEqual(['groups/lr=0.01/steps.csv', 'groups/lr=0.1/steps.csv']);
    expect(report.written.some((w) => /\.(png|svg)$/.test(w.path))).toBe(false);
    expect(report.failed).toEqual([]);
  });

  test('Python reads every number as a float; the mean and min–max band are the seeds’ at each step', () => {
    const file = join(out, 'groups', 'lr=0.1', 'steps.csv');
    expect(readFileSync(file, 'utf8').split('\n')[0]).toBe('tag,step,mean,lower,upper,n,band');
    const { header, rows } = JSON.parse(execFileSync('python3', ['-c', READ, file]).toString()) as {
      header: string[];
      rows: Row[];
    };
    expect(header).toEqual(['tag', 'step', 'mean', 'lower', 'upper', 'n', 'band']);
    const rewards = rows.filter((r) => r.tag === REWARD);
    expect(rewards.length).toBeGreaterThan(50);
    expect(rewards[0]!.step).toBe(0);
    expect(rewards.at(-1)!.step).toBe(500);
    for (const r of rewards) {
      const ys = [0, 1, 2].map((s) => reward(0.1, s, r.step));
      expect(r.n).toBe(3);
      expect(r.band).toBe('minmax');
      expect(r.mean).toBeCloseTo((ys[0]! + ys[1]! + ys[2]!) / 3, 9);
      expect(r.lower).toBeCloseTo(Math.min(...ys), 9);
      expect(r.upper).toBeCloseTo(Math.max(...ys), 9);
    }
    // Negative values are numbers too (no spreadsheet guard on a number).
    const losses = rows.filter((r) => r.tag === 'train/loss');
    expect(losses.length).toBe(rewards.length);
    expect(losses.every((r) => r.mean < 0 && r.lower <= r.mean && r.mean <= r.upper)).toBe(true);
    expect(readFileSync(file, 'utf8')).not.toContain("'");
  });
});
