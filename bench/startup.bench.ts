// Whole-process start-up of the built CLI: `--help`, `--version`, `inspect` of an empty folder and `serve` until
// it prints its URL (issue 22's start-up targets: each command loads only what it uses), min / median / p95.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pct } from './lib/stats';

const CLI = join(import.meta.dirname, '..', 'out', 'main', 'cli.js');
/** Runs per command (`npm run bench:budget` asks for a short run with N=7). */
const N = Number(process.env.N ?? 15);

function time(args: readonly string[]): number[] {
  const ms: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    ms.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`rlwatch ${args.join(' ')} exited ${r.status}: ${String(r.stderr)}`);
  }
  return ms.sort((a, b) => a - b);
}

/** Milliseconds from spawning `serve DIR` to its URL line, N times (each process stopped once it printed). */
async function serveUrl(dir: string): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await new Promise<void>((res, rej) => {
      const p = spawn(process.execPath, [CLI, 'serve', dir, '--port', '0'], {
        env: { ...process.env, RLWATCH_STORE: 'memory' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      p.stdout!.on('data', (d: Buffer) => {
        if (!/http:\/\//.test(String(d))) return;
        ms.push(performance.now() - t0);
        p.kill();
      });
      p.on('exit', () => res());
      p.on('error', rej);
    });
  }
  return ms.sort((a, b) => a - b);
}

const empty = mkdtempSync(join(tmpdir(), 'rlwatch-bench-empty-'));
const small = mkdtempSync(join(tmpdir(), 'rlwatch-bench-small-'));
writeFileSync(join(small, 'progress.csv'), 'step,loss\n1,0.5\n2,0.4\n');
try {
  // Node itself, for scale: what any command costs before rlwatch's own code runs.
  const node = ((): number[] => {
    const ms: number[] = [];
    for (let i = 0; i < N; i++) {
      const t0 = performance.now();
      spawnSync(process.execPath, ['-e', '0']);
      ms.push(performance.now() - t0);
    }
    return ms.sort((a, b) => a - b);
  })();
  // [what, runs, target, the budget's key for its median (bench/budget.json)]
  const rows: [string, number[], number | null, string | null][] = [
    ['node -e 0 (for scale)', node, null, null],
    ['rlwatch --help', time(['--help']), 100, 'startup.help_ms'],
    ['rlwatch --version', time(['--version']), 100, 'startup.version_ms'],
    ['rlwatch inspect EMPTY', time(['inspect', empty]), 150, 'startup.inspect_empty_ms'],
    ['rlwatch serve → URL', await serveUrl(small), 300, 'startup.serve_url_ms'],
  ];
  process.stdout.write(`whole process, ${N} runs each (ms)\n`);
  for (const [what, ms, budget] of rows)
    process.stdout.write(
      `${what.padEnd(24)} min ${ms[0]!.toFixed(0).padStart(4)}  median ${pct(ms, 50).toFixed(0).padStart(4)}  p95 ${pct(ms, 95).toFixed(0).padStart(4)}${budget === null ? '' : `  (target ≤ ${budget})`}\n`,
    );
  // Machine-readable figures for the budget (scripts/bench-budget.js reads `figure KEY VALUE` lines).
  for (const [, ms, , key] of rows)
    if (key) process.stdout.write(`figure ${key} ${pct(ms, 50).toFixed(1)}\n`);
  // The machine's speed: the budget widens its limits by this over its value when the budget was set.
  process.stdout.write(`figure startup.node_ms ${pct(node, 50).toFixed(1)}\n`);
} finally {
  rmSync(empty, { recursive: true, force: true });
  rmSync(small, { recursive: true, force: true });
}
