// Decides whether the desktop window can open here and launches Electron; otherwise says why in one line.

import { spawn, spawnSync } from 'node:child_process';
import { appRoot } from './paths';

export type LaunchOutcome = { kind: 'exited'; code: number } | { kind: 'unavailable'; reason: string };

/** What launching needs from the machine; tests inject fakes (the probe alone can take minutes). */
export interface LaunchHost {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  spawnSync: typeof spawnSync;
  spawn: typeof spawn;
  now(): number;
}

const realHost: LaunchHost = {
  platform: process.platform,
  env: process.env,
  spawnSync,
  spawn,
  now: Date.now,
};

/** Electron's binary where the desktop window can open here, else why not. Probes (spawns) at most once. */
export function findElectron(
  host: LaunchHost = realHost,
): { ok: true; path: string } | { ok: false; reason: string } {
  if (host.platform === 'linux' && !host.env.DISPLAY && !host.env.WAYLAND_DISPLAY) {
    return {
      ok: false,
      reason: 'no display here (DISPLAY and WAYLAND_DISPLAY are unset), so the desktop window cannot open',
    };
  }
  // Electron's npm package resolves (and on first use downloads) its binary when required.
  const probe = host.spawnSync(process.execPath, ['-e', "process.stdout.write(require('electron'))"], {
    cwd: appRoot,
    encoding: 'utf8',
    timeout: 10 * 60_000,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (probe.status === 0 && probe.stdout) return { ok: true, path: probe.stdout };
  return { ok: false, reason: 'the Electron binary is not installed and could not be downloaded' };
}

/** Launches the desktop app; a crash within the first seconds counts as "cannot start". */
export async function launchElectron(
  folder: string | undefined,
  host: LaunchHost = realHost,
): Promise<LaunchOutcome> {
  const binary = findElectron(host);
  if (!binary.ok) return { kind: 'unavailable', reason: binary.reason };
  const started = host.now();
  const child = host.spawn(binary.path, [appRoot, ...(folder ? [folder] : [])], {
    stdio: 'inherit',
    env: launchEnv(host.env),
  });
  const code = await new Promise<number>((res) => {
    child.once('error', () => res(-1));
    child.once('exit', (c, sig) => res(c ?? (sig ? 128 : 1)));
  });
  if (code !== 0 && host.now() - started < 5000) {
    return { kind: 'unavailable', reason: `Electron exited at start-up with status ${code}` };
  }
  return { kind: 'exited', code };
}

/** The app's environment minus what would make main trust a dev server's URL (`electron-vite dev` only). */
export function launchEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { ELECTRON_RENDERER_URL: _url, NODE_ENV_ELECTRON_VITE: _mode, ...rest } = env;
  return rest;
}
