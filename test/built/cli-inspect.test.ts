// The built `rlwatch inspect` command as a process: JSON on stdout, exit statuses from the contract.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';

const CLI = join(import.meta.dirname, '..', '..', 'out', 'main', 'cli.js');
const fixtures = join(import.meta.dirname, '..', 'fixtures');

function rlwatch(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('inspect --json prints one JSON document in the contract shape', () => {
  const r = rlwatch('inspect', join(fixtures, 'tfevents', 'tensorboard-writer'), '--json');
  expect(r.status).toBe(0);
  const doc = JSON.parse(r.stdout) as {
    root: string;
    runs: {
      run: string;
      sources: unknown[];
      scalars: object;
      sessions: { index: number; points: number }[];
      progress: unknown;
      config: unknown;
    }[];
  };
  expect(Object.keys(doc)).toEqual(['root', 'runs']);
  expect(doc.runs.map((x) => x.run)).toEqual(['small', 'small_perstep', 'small_tensor']);
  // The contract's keys, and `sessions` (each restart starts one): these runs never restarted.
  for (const run of doc.runs) {
    expect(Object.keys(run)).toEqual(['run', 'sources', 'scalars', 'sessions', 'progress', 'config']);
    expect(run.sessions.map((x) => x.index)).toEqual([1]);
  }
});

test('inspect on a missing path exits 2 with one line on stderr', () => {
  const r = rlwatch('inspect', '/nonexistent/rlwatch');
  expect(r.status).toBe(2);
  expect(r.stderr).toBe('rlwatch: /nonexistent/rlwatch does not exist\n');
});
