// /proc reading against a fake proc tree in a temp folder: the bounded process list, descriptors, cwd, argv, stat.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  listFds,
  listPids,
  parseStat,
  parseStatTicks,
  parseStatusRssKiB,
  readCmdline,
  readCwd,
  readFdTargets,
  readProcStats,
} from '../../../src/core/system/proc';
import { FakeProc } from './fake-proc';

let root: string;
let proc: FakeProc;
const RUN = '/data/runs/ppo-7';

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rlwatch-proc-'));
  proc = new FakeProc(join(root, 'proc'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('proc parsing', () => {
  it('reads ticks after a command name holding spaces and parentheses', () => {
    expect(parseStatTicks('42 (my (weird) proc) R 1 42 42 0 -1 0 0 0 0 0 700 300 0 0')).toBe(1000);
    expect(parseStatTicks('garbage')).toBeNull();
    expect(parseStatTicks('1 (x) R 1')).toBeNull();
    expect(parseStatusRssKiB('VmRSS:\t  123456 kB\n')).toBe(123456);
    expect(parseStatusRssKiB('Name: kthreadd\n')).toBeNull();
  });

  it('reads the state, the parent and the start time', () => {
    const line = '42 (py) Z 7 42 42 0 -1 0 0 0 0 0 700 300 0 0 20 0 4 0 98765 1000 250';
    expect(parseStat(line)).toEqual({ cpuTicks: 1000, state: 'Z', ppid: 7, startTicks: 98765 });
  });
});

describe('proc entries', () => {
  it('lists numeric entries only, at most maxProcesses', async () => {
    for (let pid = 1; pid <= 20; pid++) proc.add(pid);
    mkdirSync(join(proc.root, 'self'));
    writeFileSync(join(proc.root, 'uptime'), '1 1');
    expect((await listPids(proc.root)).sort((a, b) => a - b)).toHaveLength(20);
    expect(await listPids(proc.root, { maxProcesses: 5, maxFdsPerProcess: 10 })).toHaveLength(5);
  });

  it('reads fd targets (at most maxFdsPerProcess), the cwd and argv', async () => {
    proc.add(999, {
      fds: ['/a', '/b', '/c', `${RUN}/late`],
      cwd: RUN,
      argv: ['python', 'train.py', '--x=1'],
    });
    const fds = await listFds(999, proc.root);
    expect(fds).toHaveLength(4);
    const some = await readFdTargets(999, [...fds!].sort(), proc.root, 3);
    expect(some).not.toContain(`${RUN}/late`);
    expect(await readCwd(999, proc.root)).toBe(RUN);
    expect(await readCmdline(999, proc.root)).toEqual(['python', 'train.py', '--x=1']);
  });

  it('a missing process or proc root gives nothing', async () => {
    expect(await listPids(join(root, 'nope'))).toEqual([]);
    expect(await listFds(1, join(root, 'nope'))).toBeNull();
    expect(await readCwd(1, proc.root)).toBeNull();
    expect(await readCmdline(1, proc.root)).toEqual([]);
    expect(await readProcStats(1, join(root, 'nope'))).toBeNull();
  });
});
