// The built `rlwatch watch` as a process: NDJSON lines and --exit-on critical on a live demo; a copied run read as history.

import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';

const CLI = join(import.meta.dirname, '..', '..', 'out', 'main', 'cli.js');
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

test("watch --json --exit-on critical exits 3 on the demo's KL blow-up, after the run and its points", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-watch-e2e-'));
  const demo = spawn(process.execPath, [CLI, 'demo', dir, '--rate', '60', '--steps', '3000'], {
    stdio: 'ignore',
  });
  const demoExited = new Promise<void>((res) => demo.once('exit', () => res()));
  cleanup.push(async () => {
    // The demo keeps writing until it exits: remove its folder only after that.
    demo.kill('SIGINT');
    await demoExited;
    rmSync(dir, { recursive: true, force: true });
  });
  const watch = spawn(
    process.execPath,
    [CLI, 'watch', dir, '--json', '--exit-on', 'critical', '--no-system'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  watch.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((res) => watch.once('exit', res));
  expect(code).toBe(3);
  const lines = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { t: number; type: string; [k: string]: unknown });
  expect(lines.every((l) => typeof l.t === 'number' && typeof l.type === 'string')).toBe(true);
  expect(lines.find((l) => l.type === 'run')).toMatchObject({ run: 'ppo_demo', state: 'discovered' });
  expect(lines.some((l) => l.type === 'scalars' && l.tag === 'approx_kl')).toBe(true);
  const critical = lines.filter((l) => l.type === 'alert' && l.severity === 'critical');
  expect(critical).toHaveLength(1);
  // The KL incident raised as a warning is escalated when it passes twice the target: the same id, not a new alert.
  expect(critical[0]).toMatchObject({ run: 'ppo_demo', rule: 'kl-above-target', state: 'escalated' });
  const raisedKl = lines.find(
    (l) => l.type === 'alert' && l.rule === 'kl-above-target' && l.state === 'raised',
  );
  expect(raisedKl?.id).toBe(critical[0]!.id);
  // The demo's KL blow-up starts at step 140; the critical alert comes from the blow-up, not before.
  expect(critical[0]!.step as number).toBeGreaterThanOrEqual(140);
  expect(critical[0]!.value as number).toBeGreaterThan(0.04);
}, 60_000);

test('a run folder copied just now (fresh files, logged in 2025) is history: alerts marked so, never stalled', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-watch-copy-'));
  cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
  // A plain copy, as cp or scp without -p: every file written now (test/fixtures/tfevents/ORIGIN.md says whence).
  cpSync(join(import.meta.dirname, '..', 'fixtures', 'tfevents', '0pk0__rl4avs'), join(dir, 'run'), {
    recursive: true,
  });
  expect(Date.now() - statSync(join(dir, 'run')).mtimeMs).toBeLessThan(60_000);
  const watch = spawn(process.execPath, [CLI, 'watch', dir, '--json', '--no-system'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, RLWATCH_STORE: 'memory' },
  });
  let out = '';
  watch.stdout.on('data', (d: Buffer) => (out += d.toString()));
  // Past the 25 s a silent run takes to read stalled (it read stalled at 24 s when its write time decided).
  await new Promise((res) => setTimeout(res, 40_000));
  watch.kill('SIGINT');
  await new Promise((res) => watch.once('exit', res));
  const lines = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; [k: string]: unknown });
  expect(lines.find((l) => l.type === 'run')).toMatchObject({ run: 'run', state: 'discovered' });
  const alerts = lines.filter((l) => l.type === 'alert');
  expect(alerts.length).toBeGreaterThan(0);
  expect(alerts.filter((l) => l.state !== 'cleared').every((l) => l.history === true)).toBe(true);
  expect(lines.filter((l) => l.type === 'run' && l.state === 'stalled')).toEqual([]);
}, 90_000);
