// Per-run process attribution on a fake /proc: open files, cwd, command line; rlwatch's own processes never.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { attributeProcesses } from '../../../src/core/system/run-attribution';
import type { RunFolder } from '../../../src/core/system/run-attribution';
import { FakeProc } from './fake-proc';
import { isViewerCommand } from '../../../src/core/system/viewer-process';

const ROOT = '/data/runs';
const RUNS: RunFolder[] = ['a', 'b', 'c', 'ab'].map((r) => ({ run: r, dirs: [`${ROOT}/${r}`] }));
const SELF = 50;

let tmp: string;
let proc: FakeProc;

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'rlwatch-attr-'));
  proc = new FakeProc(join(tmp, 'proc'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const attribute = (runs: RunFolder[] = RUNS, exclude: number[] = [SELF]) =>
  attributeProcesses(runs, {
    procRoot: proc.root,
    exclude: new Set(exclude),
    selfPid: SELF,
    packageName: async (dir) => (dir === '/opt/rlwatch' ? 'rlwatch' : null),
  });

describe('attributeProcesses', () => {
  it('a process holding files open under run A is A’s (not B’s, where it works, nor ab’s, a sibling prefix)', async () => {
    proc.add(100, { fds: ['/dev/null', `${ROOT}/a/events.out.tfevents.1`], cwd: `${ROOT}/b` });
    proc.add(101, { fds: [`${ROOT}/ab/log.csv`], cwd: '/home/u' });
    expect(await attribute()).toEqual([
      { pid: 100, run: 'a', evidence: 'open-files', startTicks: 100 },
      { pid: 101, run: 'ab', evidence: 'open-files', startTicks: 100 },
    ]);
  });

  it('a process whose cwd is run B (or below it) is B’s', async () => {
    proc.add(200, { cwd: `${ROOT}/b`, argv: ['python', 'train.py'] });
    proc.add(201, { cwd: `${ROOT}/b/tb`, argv: ['python', 'train.py'] });
    expect(await attribute()).toEqual([
      { pid: 200, run: 'b', evidence: 'cwd', startTicks: 100 },
      { pid: 201, run: 'b', evidence: 'cwd', startTicks: 100 },
    ]);
  });

  it('a command line naming run C’s folder (relative, resolved against the cwd; or --opt=PATH) is C’s', async () => {
    proc.add(300, { cwd: '/data', argv: ['python', 'train.py', '--logdir', 'runs/c'] });
    proc.add(301, { cwd: '/home/u', argv: ['python', 'train.py', '--out=../../data/runs/c/tb'] });
    proc.add(302, { cwd: '/home/u', argv: ['python', 'train.py', '--logdir', 'runs/c'] });
    expect(await attribute()).toEqual([
      { pid: 300, run: 'c', evidence: 'command-line', startTicks: 100 },
      { pid: 301, run: 'c', evidence: 'command-line', startTicks: 100 },
    ]);
  });

  it('a path is matched by a lookup per folder above it, not against every run (10k runs, 50 open files)', async () => {
    const many = Array.from({ length: 10_000 }, (_, i) => ({ run: `r${i}`, dirs: [`${ROOT}/r${i}`] }));
    proc.add(500, { fds: Array.from({ length: 50 }, (_, i) => `${ROOT}/r9999/f${i}.csv`) });
    const startsWith = vi.spyOn(String.prototype, 'startsWith');
    let calls: number;
    try {
      expect(await attribute(many)).toEqual([
        { pid: 500, run: 'r9999', evidence: 'open-files', startTicks: 100 },
      ]);
    } finally {
      calls = startsWith.mock.calls.length;
      startsWith.mockRestore();
    }
    // Before: each open file was compared with every run's folder (~450 000 prefix tests here).
    expect(calls).toBeLessThan(10_000);
  });

  it('nested run folders: a path belongs to the deepest run', async () => {
    proc.add(400, { fds: [`${ROOT}/a/x.csv`] });
    proc.add(401, { fds: [`${ROOT}/top.csv`] });
    const runs = [{ run: '.', dirs: [ROOT] }, ...RUNS];
    expect((await attribute(runs)).map((a) => [a.pid, a.run])).toEqual([
      [400, 'a'],
      [401, '.'],
    ]);
  });

  it('never the processes that started rlwatch: npm run, a launcher script naming the folder, their shell', async () => {
    // `npm run check:runs -- DIR` ran a script that started rlwatch: on a 449-day-old corpus run they were listed.
    proc.add(SELF, { cwd: '/home/u', ppid: 45 });
    proc.add(45, { cwd: '/home/u', ppid: 40, argv: ['node', 'render-check/main.ts', `${ROOT}/a`] });
    proc.add(40, { cwd: '/home/u', ppid: 30, argv: ['npm', 'run', 'check:runs', '--', `${ROOT}/a`] });
    proc.add(30, { cwd: `${ROOT}/a`, ppid: 1, argv: ['bash'] });
    // A trainer beside them, started by the same shell, is still found.
    proc.add(70, { fds: [`${ROOT}/a/log.csv`], cwd: `${ROOT}/a`, ppid: 30, argv: ['python', 'train.py'] });
    expect(await attribute()).toEqual([{ pid: 70, run: 'a', evidence: 'open-files', startTicks: 100 }]);
  });

  it('never rlwatch’s own processes: our pid, our children, rlwatch CLI / agent / Electron app and helpers', async () => {
    const inA = { fds: [`${ROOT}/a/metrics.jsonl`], cwd: `${ROOT}/a` };
    proc.add(SELF, inA);
    proc.add(51, { ...inA, ppid: SELF, argv: ['nvidia-smi', '-q', '-x'] });
    proc.add(60, { ...inA, argv: ['rlwatch', 'agent', `${ROOT}/a`] });
    proc.add(61, { ...inA, argv: ['node', '/usr/local/bin/rlwatch', 'agent', '.'] });
    proc.add(62, { ...inA, argv: ['node', '/opt/rlwatch/bin/rlwatch.js', 'watch', `${ROOT}/a`] });
    proc.add(63, { cwd: '/opt/rlwatch', argv: ['/usr/bin/node', 'out/main/cli.js', 'serve', `${ROOT}/a`] });
    proc.add(64, {
      cwd: '/home/u',
      argv: ['/opt/rlwatch/node_modules/electron/dist/electron', '/opt/rlwatch', `${ROOT}/a`],
    });
    proc.add(65, { ...inA, argv: ['/opt/rlwatch/node_modules/electron/dist/electron', '--type=renderer'] });
    proc.add(66, { ...inA, argv: ['node', '/usr/lib/node_modules/rlwatch/out/main/index.js'] });
    expect(await attribute()).toEqual([]);
    // The same shapes not being rlwatch are evidence: another Electron app's main, a trainer next to us.
    proc.add(70, { cwd: '/home/u', argv: ['/opt/other/electron', '/opt/other', `${ROOT}/a`] });
    proc.add(71, { ...inA, argv: ['python', 'rlwatch_ppo.py'] });
    expect((await attribute()).map((a) => [a.pid, a.run, a.evidence])).toEqual([
      [70, 'a', 'command-line'],
      [71, 'a', 'open-files'],
    ]);
  });

  it('kernel threads (empty command line) and unreadable processes are no candidates', async () => {
    proc.add(80, { cwd: `${ROOT}/a`, argv: [] });
    proc.add(81, { cwd: `${ROOT}/a` });
    rmSync(join(proc.root, '81', 'fd'), { recursive: true });
    expect(await attribute()).toEqual([]);
  });

  it('write evidence only: a file open for reading (tail -f, a plotting script) is no trainer’s, one open for writing is', async () => {
    proc.add(400, {
      fds: [`${ROOT}/a/progress.csv`],
      modes: ['r'],
      argv: ['python', 'plot.py', `${ROOT}/a`],
    });
    proc.add(401, { fds: [`${ROOT}/a/progress.csv`], modes: ['w'], argv: ['python', 'train.py'] });
    proc.add(402, {
      fds: [`${ROOT}/b/progress.csv`],
      modes: ['r'],
      cwd: `${ROOT}/b`,
      argv: ['python', 'x.py'],
    });
    expect((await attribute()).map((a) => [a.pid, a.run, a.evidence])).toEqual([[401, 'a', 'open-files']]);
  });

  it.each([
    ['tail -f', ['tail', '-f', `${ROOT}/a/progress.csv`]],
    ['less', ['/usr/bin/less', `${ROOT}/a/progress.csv`]],
    ['tensorboard', ['/home/u/.venv/bin/python3', '/home/u/.venv/bin/tensorboard', '--logdir', `${ROOT}/a`]],
    ['python -m tensorboard.main', ['python', '-m', 'tensorboard.main', `--logdir=${ROOT}/a`]],
    ['a browser', ['/opt/google/chrome/chrome', `file://${ROOT}/a/report.html`]],
    ['chromium (a test driver’s)', ['/usr/bin/chromium', '--headless', `--user-data-dir=${ROOT}/a`]],
    ['a test driver', ['node', '/repo/node_modules/.bin/vitest', 'run', `${ROOT}/a`]],
  ])('a viewer is never the trainer: %s, even holding the run’s files or working in it', async (_, argv) => {
    proc.add(500, { argv, cwd: `${ROOT}/a`, fds: [`${ROOT}/a/progress.csv`] });
    expect(isViewerCommand(argv)).toBe(true);
    expect(await attribute()).toEqual([]);
  });

  it('trainers are no viewers by name: python train.py, torchrun, accelerate launch, node writer.js', () => {
    for (const argv of [
      ['python', 'train.py'],
      ['torchrun', '--nproc_per_node=8', 'train.py'],
      ['accelerate', 'launch', 'train.py'],
      ['node', 'writer.js'],
      ['python', '-m', 'verl.trainer.main_ppo'],
    ])
      expect(isViewerCommand(argv)).toBe(false);
  });

  it('no runs: no scan', async () => {
    proc.add(90, { cwd: `${ROOT}/a` });
    expect(await attribute([])).toEqual([]);
  });
});

describe('attributeProcesses on this machine’s /proc (Linux)', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) if (c.pid !== undefined) process.kill(-c.pid, 'SIGKILL');
  });

  it.runIf(process.platform === 'linux')(
    'a real writer (file open for appending) is the run’s; a real `tail -f` on its file and a reader naming the folder are not',
    async () => {
      const run = join(tmp, 'runs', 'seed1');
      mkdirSync(run, { recursive: true });
      const file = join(run, 'progress.csv');
      writeFileSync(file, 'a,b\n');
      const writer = `const fs=require('fs');const fd=fs.openSync(process.argv[1],'a');setInterval(()=>fs.writeSync(fd,'1,2\\n'),100)`;
      const reader = `const fs=require('fs');const fd=fs.openSync(process.argv[1],'r');setInterval(()=>fs.readSync(fd,Buffer.alloc(64)),100)`;
      // Started by a shell of their own: rlwatch's own children (this test's) are never attributed.
      const sh = spawn(
        'sh',
        [
          '-c',
          'tail -f "$1" >/dev/null & echo tail $!; node -e "$2" "$1" & echo writer $!; node -e "$3" "$1" & echo reader $!; wait',
          'sh',
          file,
          writer,
          reader,
        ],
        { detached: true, stdio: ['ignore', 'pipe', 'ignore'] },
      );
      children.push(sh);
      const pids = await new Promise<Record<string, number>>((resolve) => {
        let text = '';
        sh.stdout!.on('data', (b: Buffer) => {
          text += b.toString();
          const m = [...text.matchAll(/(\w+) (\d+)\n/g)];
          if (m.length === 3) resolve(Object.fromEntries(m.map((x) => [x[1]!, Number(x[2])])));
        });
      });
      // Wait until each holds the file open (as each of them does once it has run a moment).
      const holds = (pid: number): boolean => {
        try {
          return readdirSync(`/proc/${pid}/fd`).some((fd) => {
            try {
              return readlinkSync(`/proc/${pid}/fd/${fd}`) === file;
            } catch {
              return false;
            }
          });
        } catch {
          return false;
        }
      };
      for (let i = 0; i < 100 && ![pids.writer!, pids.tail!, pids.reader!].every(holds); i++)
        await new Promise((r) => setTimeout(r, 100));
      const found = await attributeProcesses([{ run: 'seed1', dirs: [run] }], {
        procRoot: '/proc',
        exclude: new Set([process.pid]),
        selfPid: process.pid,
      });
      const byPid = new Map(found.map((a) => [a.pid, a.evidence]));
      expect(byPid.get(pids.writer!)).toBe('open-files');
      expect(byPid.has(pids.tail!)).toBe(false);
      expect(byPid.has(pids.reader!)).toBe(false);
    },
    20_000,
  );
});
