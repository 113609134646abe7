// The built `rlwatch export` drawing figures as a process: sizes, SVG, partial failure status, --watch and Ctrl-C.

import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { CLI, runCli } from '../e2e/cli-process';
import { xmlProblem } from '../helpers/xml-well-formed';

const runs = join(import.meta.dirname, '..', 'fixtures', 'progress');
const RUN = 'Whomstt__Atari-Breakout-DQN';
const root = mkdtempSync(join(tmpdir(), 'rlwatch-cli-figures-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function rlwatch(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A PNG's size from its IHDR chunk (bytes 16–23, big-endian), after checking the signature. */
function pngSize(file: string): [number, number] {
  const b = readFileSync(file);
  expect(b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  expect(b.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
}

test('--png --svg --scale 2 writes both formats at the asked size; --report json prints them', () => {
  const out = join(root, 'both');
  const r = rlwatch(
    'export',
    runs,
    '--out',
    out,
    '--png',
    '--svg',
    '--width',
    '400',
    '--height',
    '225',
    '--scale',
    '2',
    '--runs',
    RUN,
    '--tags',
    '^loss$',
    '--json',
    '--report',
    'json',
    '--theme',
    'dark',
  );
  expect(r.status).toBe(0);
  const report = JSON.parse(r.stdout) as { written: { path: string }[]; failed: unknown[] };
  expect(report.failed).toEqual([]);
  const written = report.written.map((w) => w.path.slice(out.length + 1)).sort();
  expect(written).toEqual([
    `${RUN}/figures/loss.png`,
    `${RUN}/figures/loss.svg`,
    `${RUN}/training_metrics.json`,
    `${RUN}/training_progress.png`,
    `${RUN}/training_progress.svg`,
  ]);
  expect(pngSize(join(out, RUN, 'training_progress.png'))).toEqual([800, 450]);
  expect(xmlProblem(readFileSync(join(out, RUN, 'figures', 'loss.svg'), 'utf8'))).toBeNull();
  // One progress line per file on a non-TTY stderr.
  expect(r.stderr.split('\n').filter((l) => /^rlwatch: \d+\/\d+ wrote /.test(l))).toHaveLength(5);
});

test('a figure that cannot be written is named on stderr and the status says the export was partial', () => {
  const out = join(root, 'partial');
  mkdirSync(join(out, RUN), { recursive: true });
  writeFileSync(join(out, RUN, 'figures'), 'a file where the folder would go');
  const r = rlwatch('export', runs, '--out', out, '--png', '--runs', RUN, '--tags', '^loss$');
  expect(r.status).toBe(1);
  expect(r.stdout).toMatch(/1 file\(s\) written, 1 failed/);
  expect(r.stderr).toContain(`rlwatch: cannot write ${join(out, RUN, 'figures', 'loss.png')}`);
  expect(statSync(join(out, RUN, 'training_progress.png')).size).toBeGreaterThan(0);
});

test('--watch exports again after the run grows and stops cleanly on Ctrl-C', async () => {
  const run = join(root, 'live', 'a');
  mkdirSync(run, { recursive: true });
  const csv = join(run, 'training_metrics.csv');
  writeFileSync(csv, 'step,loss,reward\n0,1,0\n1,0.9,0.1\n2,0.8,0.3\n');
  const out = join(root, 'live-out');
  const cli = runCli([
    'export',
    join(root, 'live'),
    '--out',
    out,
    '--png',
    '--watch',
    '--every',
    '1',
    '--report',
    'json',
    '--width',
    '320',
    '--height',
    '180',
  ]);
  try {
    await cli.waitFor(/"written":\[\{"path"/);
    const first = readFileSync(join(out, 'a', 'training_progress.png'));
    appendFileSync(csv, '3,0.5,0.9\n4,0.4,1.2\n5,0.2,1.5\n');
    await cli.waitFor(/"written":\[\{"path"[\s\S]*"written":\[\{"path"/);
    const second = readFileSync(join(out, 'a', 'training_progress.png'));
    expect(second.equals(first)).toBe(false);
  } finally {
    expect(await cli.stop()).toBe(0);
  }
  // NDJSON: one report per round, each a whole JSON object.
  const lines = cli
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'));
  expect(lines.length).toBeGreaterThanOrEqual(2);
  for (const l of lines) expect(JSON.parse(l)).toHaveProperty('written');
});
