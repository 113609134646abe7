// The built `rlwatch export --groups` as a process on 2 configs × 3 seeds: group figures (PNG decoded, SVG text), runs_table.csv.

import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EventFileWriter } from '../../src/core/tfevents/writer';
import { runColor } from '../../src/shared/charts/chart-theme';
import { BAND_MEANING } from '../../src/shared/compare/group-stats';
import { CLI } from '../e2e/cli-process';

const root = mkdtempSync(join(tmpdir(), 'rlwatch-cli-groups-'));
const runs = join(root, 'runs');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const CONFIGS = [
  { name: 'lr0.1', lr: 0.1, base: 0 },
  { name: 'lr0.01', lr: 0.01, base: 8 },
];
const SEEDS = [0, 1, 2];
const REWARD = 'rollout/ep_rew_mean';
/** Every run logs to step 990 but this one, which stops at 600: its group's figure says n = 2 of 3 after it. */
const SHORT = 'lr0.01_seed2';
const reward = (base: number, seed: number, step: number): number =>
  base + 10 * (1 - Math.exp(-step / 300)) + 1.5 * Math.sin(step / 47 + seed * 2.1) + seed * 0.6;

function writeRun(run: string, config: Record<string, unknown>, base: number, seed: number): void {
  const dir = join(runs, run);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, gamma: 0.99 }));
  const w = new EventFileWriter(dir, { wallTime: 1_700_000_000 });
  const last = run === SHORT ? 600 : 990;
  for (let step = 0; step <= last; step += 10)
    w.scalars(
      step,
      [
        { tag: REWARD, value: reward(base, seed, step) },
        { tag: 'train/loss', value: 1 / (1 + step / 100) + seed * 0.01 },
      ],
      'simple',
      1_700_000_000 + step,
    );
  w.close();
}

beforeAll(() => {
  for (const c of CONFIGS)
    for (const seed of SEEDS) writeRun(`${c.name}_seed${seed}`, { lr: c.lr, seed }, c.base, seed);
  // A config no other run shares: in no seed group.
  writeRun('solo', { lr: 0.5, seed: 0 }, 4, 0);
});

interface Report {
  runs: string[];
  written: { path: string; bytes: number }[];
  failed: unknown[];
  notices: string[];
}

function exportGroups(out: string, ...flags: string[]): Report {
  const r = spawnSync(
    process.execPath,
    [CLI, 'export', runs, '--out', out, '--groups', '--report', 'json', ...flags],
    { encoding: 'utf8', timeout: 120_000 },
  );
  expect(r.stderr).not.toMatch(/FAILED|Error/);
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as Report;
}

/** The decoded PNG's size and how many of its pixels have `colour` (rgb) within ±4 on each channel. */
async function pixelsOf(
  file: string,
  colours: [number, number, number][],
): Promise<{ size: number[]; counts: number[] }> {
  const img = await loadImage(readFileSync(file));
  const c = createCanvas(img.width, img.height);
  const ctx = c.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const px = ctx.getImageData(0, 0, img.width, img.height).data;
  const counts = colours.map(() => 0);
  for (let i = 0; i < px.length; i += 4)
    colours.forEach(([r, g, b], k) => {
      if (Math.abs(px[i]! - r) <= 4 && Math.abs(px[i + 1]! - g) <= 4 && Math.abs(px[i + 2]! - b) <= 4)
        counts[k]!++;
    });
  return { size: [img.width, img.height], counts };
}

/** Palette colour `i` at the band's 20 % over the light theme's white panel. */
function bandTint(i: number): [number, number, number] {
  const n = parseInt(runColor(i).slice(1), 16);
  return [n >> 16, (n >> 8) & 255, n & 255].map((v) => Math.round(0.2 * v + 0.8 * 255)) as [
    number,
    number,
    number,
  ];
}

const svgText = (file: string): string[] =>
  [...readFileSync(file, 'utf8').matchAll(/<text\b[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);

describe('export --groups --png --svg --csv', () => {
  const out = join(root, 'all');
  let report: Report;
  beforeAll(() => {
    report = exportGroups(out, '--png', '--svg', '--csv', '--band', 'ci95', '--iqm');
  });

  test('writes groups/GROUP/TAG and groups/comparison/TAG in both formats, each in the report', () => {
    const groups = join(out, 'groups');
    expect(readdirSync(groups).sort()).toEqual(['comparison', 'lr=0.01', 'lr=0.1']);
    // With --csv each group's tidy table beside its figures (the comparison has none: it is no group).
    for (const dir of readdirSync(groups))
      expect(readdirSync(join(groups, dir)).sort()).toEqual([
        'rollout__ep_rew_mean.png',
        'rollout__ep_rew_mean.svg',
        ...(dir === 'comparison' ? [] : ['steps.csv']),
        'train__loss.png',
        'train__loss.svg',
      ]);
    const written = new Set(report.written.map((w) => w.path));
    for (const dir of readdirSync(groups))
      for (const f of readdirSync(join(groups, dir))) expect(written.has(join(groups, dir, f))).toBe(true);
    expect(report.failed).toEqual([]);
    // The run in no group is exported as a run and named as left out of groups/.
    expect(existsSync(join(out, 'solo', 'training_progress.png'))).toBe(true);
    expect(report.notices).toContain(
      'groups/ leaves out 1 run in no seed group (no other run differs from it only in its seed): solo',
    );
  });

  test('the PNGs decode at the figure size, each group band filled in its colour', async () => {
    // A group has its first member's look in the folder's sorted run order, as in the window: lr0.01_seed0 is run 0,
    // lr0.1_seed0 run 3 (after the three lr0.01 runs), in every figure.
    const tints = [bandTint(0), bandTint(3)];
    const cmp = await pixelsOf(join(out, 'groups', 'comparison', 'rollout__ep_rew_mean.png'), tints);
    expect(cmp.size).toEqual([1600, 900]);
    expect(cmp.counts[0]).toBeGreaterThan(5000);
    expect(cmp.counts[1]).toBeGreaterThan(5000);
    const one = await pixelsOf(join(out, 'groups', 'lr=0.1', 'rollout__ep_rew_mean.png'), tints);
    expect(one.size).toEqual([1600, 900]);
    expect(one.counts[0]).toBeLessThan(50);
    expect(one.counts[1]).toBeGreaterThan(5000);
  });

  test('the SVG says what the band means, each group with its runs, and where a group thins out', () => {
    const text = svgText(join(out, 'groups', 'comparison', 'rollout__ep_rew_mean.svg'));
    const subtitle = text.find((t) => t.startsWith('band:'))!;
    expect(subtitle).toContain(BAND_MEANING.ci95);
    expect(subtitle).toContain('dashed: interquartile mean');
    // The step the short run last logged (600), not the band grid's point before it.
    expect(subtitle).toContain('lr=0.01: n = 2 of 3 after step 600');
    expect(text).toEqual(expect.arrayContaining(['lr=0.01 (over seed ×3)', 'lr=0.1 (over seed ×3)']));
    const one = svgText(join(out, 'groups', 'lr=0.1', 'train__loss.svg'));
    expect(one).toContain('Seed group lr=0.1 (over seed ×3): train/loss');
    expect(one).toContain('lr=0.1 (over seed ×3)');
    expect(one.join('\n')).not.toContain('lr=0.01');
  });

  test('runs_table.csv has a row per exported run under its seed group’s row, the config keys that vary as columns', () => {
    const lines = readFileSync(join(out, 'runs_table.csv'), 'utf8').trimEnd().split('\n');
    const header = lines[0]!.split(',');
    // As `inspect --table --csv`: each row says whether it is a group or a run, and which group.
    expect(header.slice(0, 5)).toEqual(['kind', 'group', 'run', 'status', 'format']);
    expect(header).toContain('lr');
    expect(header).toContain('seed');
    // gamma is equal in every run: folded away, as `inspect --table` does.
    expect(header).not.toContain('gamma');
    const rows = lines.slice(1).map((l) => l.split(','));
    const col = (name: string): number => header.indexOf(name);
    expect(rows.filter((r) => r[0] === 'run').map((r) => r[col('run')])).toEqual([
      'lr0.01_seed0',
      'lr0.01_seed1',
      'lr0.01_seed2',
      'lr0.1_seed0',
      'lr0.1_seed1',
      'lr0.1_seed2',
      'solo',
    ]);
    expect(rows.filter((r) => r[0] === 'group').map((r) => r[1])).toEqual(['lr=0.01', 'lr=0.1']);
    expect(rows.filter((r) => r[0] === 'run' && r[1] === 'lr=0.1').length).toBe(3);
    const short = rows.find((r) => r[col('run')] === SHORT)!;
    expect([short[col('steps')], short[col('lr')], short[col('seed')]]).toEqual(['600', '0.01', '2']);
    expect(report.written.map((w) => w.path)).toContain(join(out, 'runs_table.csv'));
  });
});

test("--paper: one column at 300 dpi, the groups named by their settings, the band's meaning whole in the caption", async () => {
  const out = join(root, 'paper');
  exportGroups(out, '--png', '--svg', '--paper', '--band', 'ci95', '--tags', 'rollout');
  const dir = join(out, 'groups', 'comparison');
  const png = await pixelsOf(join(dir, 'rollout__ep_rew_mean.png'), [bandTint(0)]);
  expect(png.size).toEqual([1050, 788]);
  const text = svgText(join(dir, 'rollout__ep_rew_mean.svg'));
  // The caption wraps over lines at this width: joined, it says the whole meaning and where a group thins out.
  const caption = text.join(' ');
  expect(caption).toContain(BAND_MEANING.ci95.split(' (')[0]!);
  expect(caption).toContain('lr=0.01: n = 2 of 3 after step 600');
  expect(caption).toContain('lr=0.01 (over seed ×3)');
  expect(caption).toContain('lr=0.1 (over seed ×3)');
});

test('--runs picks the runs grouped and tabled: one group, no comparison; --band takes no other value', () => {
  const out = join(root, 'one');
  const report = exportGroups(out, '--svg', '--csv', '--runs', '^lr0\\.1_', '--band', 'std');
  expect(readdirSync(join(out, 'groups'))).toEqual(['lr0.1']);
  expect(svgText(join(out, 'groups', 'lr0.1', 'rollout__ep_rew_mean.svg')).join('\n')).toContain(
    BAND_MEANING.std,
  );
  expect(report.notices.filter((n) => n.includes('seed group'))).toEqual([]);
  const table = readFileSync(join(out, 'runs_table.csv'), 'utf8').trimEnd().split('\n');
  expect(table.slice(1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual([
    // One group alone is named by its runs' name without the seed.
    'group,lr0.1,lr0.1 (over seed ×3)',
    'run,lr0.1,lr0.1_seed0',
    'run,lr0.1,lr0.1_seed1',
    'run,lr0.1,lr0.1_seed2',
  ]);

  const bad = spawnSync(process.execPath, [CLI, 'export', runs, '--out', out, '--groups', '--band', 'iqr'], {
    encoding: 'utf8',
  });
  expect(bad.status).toBe(2);
  expect(bad.stderr).toMatch(/--band must be minmax, std or ci95, got 'iqr'/);
  const alone = spawnSync(process.execPath, [CLI, 'export', runs, '--out', out, '--iqm'], {
    encoding: 'utf8',
  });
  expect(alone.status).toBe(2);
  expect(alone.stderr).toMatch(/--band and --iqm go with --groups/);
});
