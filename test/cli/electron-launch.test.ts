// `rlwatch open`'s Electron launch: the binary probe runs once, and where Electron cannot start it says why.

import { EventEmitter } from 'node:events';
import type { spawn, spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { launchElectron, type LaunchHost } from '../../src/cli/electron-launch';

/** A host whose probe answers `probeOut` (or fails) and whose Electron exits with `exitCode` after `runsMs`. */
function fakeHost(opts: {
  probeOut: string | null;
  exitCode?: number;
  runsMs?: number;
  env?: NodeJS.ProcessEnv;
}) {
  let clock = 0;
  const probes: string[][] = [];
  const launches: { command: string; args: readonly string[] }[] = [];
  const host: LaunchHost = {
    platform: 'linux',
    env: opts.env ?? { DISPLAY: ':0' },
    now: () => clock,
    spawnSync: ((command: string, args: string[]) => {
      probes.push([command, ...args]);
      return opts.probeOut === null
        ? { status: 1, stdout: '', stderr: '', pid: 1, output: [], signal: null }
        : { status: 0, stdout: opts.probeOut, stderr: '', pid: 1, output: [], signal: null };
    }) as unknown as typeof spawnSync,
    spawn: ((command: string, args: readonly string[]) => {
      launches.push({ command, args });
      const child = new EventEmitter();
      setTimeout(() => {
        clock += opts.runsMs ?? 60_000;
        child.emit('exit', opts.exitCode ?? 0, null);
      }, 0);
      return child;
    }) as unknown as typeof spawn,
  };
  return { host, probes, launches };
}

describe('launchElectron', () => {
  test('probes for the Electron binary once, then runs it on the folder', async () => {
    const { host, probes, launches } = fakeHost({ probeOut: '/opt/electron/electron' });
    expect(await launchElectron('/runs', host)).toEqual({ kind: 'exited', code: 0 });
    expect(probes).toHaveLength(1);
    expect(launches).toHaveLength(1);
    expect(launches[0]!.command).toBe('/opt/electron/electron');
    expect(launches[0]!.args.at(-1)).toBe('/runs');
  });

  test('a missing binary is probed once and reported, nothing is launched', async () => {
    const { host, probes, launches } = fakeHost({ probeOut: null });
    expect(await launchElectron(undefined, host)).toEqual({
      kind: 'unavailable',
      reason: 'the Electron binary is not installed and could not be downloaded',
    });
    expect(probes).toHaveLength(1);
    expect(launches).toHaveLength(0);
  });

  test('without a display on Linux nothing is probed or launched', async () => {
    const { host, probes, launches } = fakeHost({ probeOut: '/opt/electron/electron', env: {} });
    const outcome = await launchElectron(undefined, host);
    expect(outcome).toMatchObject({ kind: 'unavailable', reason: expect.stringMatching(/no display/) });
    expect(probes).toHaveLength(0);
    expect(launches).toHaveLength(0);
  });

  test('Electron failing within 5 s counts as unavailable; a later non-zero exit is its status', async () => {
    const early = fakeHost({ probeOut: '/e', exitCode: 1, runsMs: 1000 });
    expect(await launchElectron(undefined, early.host)).toEqual({
      kind: 'unavailable',
      reason: 'Electron exited at start-up with status 1',
    });
    const late = fakeHost({ probeOut: '/e', exitCode: 3, runsMs: 60_000 });
    expect(await launchElectron(undefined, late.host)).toEqual({ kind: 'exited', code: 3 });
  });
});
