// Per-run process attribution on a fake /proc: open files, cwd, command line; rlwatch's own processes never.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { attributeProcesses } from '../../../src/core/system/run-attribution';
import type { RunFolder } from '../../../src/core/system/run-attribution';
import { FakeProc } from './fake-proc';

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

  it('no runs: no scan', async () => {
    proc.add(90, { cwd: `${ROOT}/a` });
    expect(await attribute([])).toEqual([]);
  });
});
