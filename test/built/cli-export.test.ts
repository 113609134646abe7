// The built `rlwatch export` command as a process: files written, --json report, exit statuses.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';

const CLI = join(import.meta.dirname, '..', '..', 'out', 'main', 'cli.js');
const runs = join(import.meta.dirname, '..', 'fixtures', 'tfevents', 'tensorboard-writer');
const out = mkdtempSync(join(tmpdir(), 'rlwatch-cli-export-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function rlwatch(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('export writes each run folder and --report json prints what was written', () => {
  const r = rlwatch(
    'export',
    runs,
    '--out',
    out,
    '--json',
    '--csv',
    '--tags',
    '^loss$|^acc',
    '--report',
    'json',
  );
  expect(r.status).toBe(0);
  const report = JSON.parse(r.stdout) as {
    runs: string[];
    written: { path: string; bytes: number }[];
    failed: unknown[];
  };
  expect(report.runs).toEqual(['small', 'small_perstep', 'small_tensor']);
  expect(report.failed).toEqual([]);
  // Per run metrics_long.csv, metrics_wide.csv and training_metrics.json; with --csv the runs table beside them.
  expect(report.written).toHaveLength(10);
  for (const w of report.written) expect(existsSync(w.path)).toBe(true);
  expect(report.written.at(-1)!.path).toBe(join(out, 'runs_table.csv'));
  expect(
    readFileSync(join(out, 'runs_table.csv'), 'utf8')
      .split('\n')
      .slice(1, 4)
      .map((l) => l.split(',')[0]),
  ).toEqual(report.runs);
  const header = readFileSync(join(out, 'small', 'metrics_long.csv'), 'utf8').split('\n')[0];
  expect(header).toBe('run,tag,step,wall_time,value,session');
  // Progress: one line per file on a non-TTY stderr.
  expect(r.stderr.split('\n').filter((l) => /^rlwatch: \d+\/10 wrote /.test(l))).toHaveLength(10);
});

test('an --out inside the folder it reads, or a bad figure flag, is a usage error (exit 2, one line)', () => {
  const inside = rlwatch('export', runs, '--out', join(runs, 'exports'));
  expect(inside.status).toBe(2);
  expect(inside.stderr).toMatch(/^rlwatch: --out .* is inside .*never writes into the folder it reads/);
  expect(existsSync(join(runs, 'exports'))).toBe(false);
  const theme = rlwatch('export', runs, '--out', out, '--png', '--theme', 'blue');
  expect(theme.status).toBe(2);
  expect(theme.stderr).toMatch(/^rlwatch: --theme must be light or dark/);
  const every = rlwatch('export', runs, '--out', out, '--every', '5');
  expect(every.status).toBe(2);
  expect(every.stderr).toMatch(/--every goes with --watch/);
  expect(rlwatch('export', runs).status).toBe(2);
});
