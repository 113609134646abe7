// Decides whether the desktop window can open here and launches Electron; otherwise says why in one line.

import { spawn, spawnSync } from 'node:child_process';
import { appRoot } from './paths';

export type LaunchOutcome = { kind: 'exited'; code: number } | { kind: 'unavailable'; reason: string };

/** Why Electron cannot start on this machine, or null when it should. */
export function electronUnavailableReason(env: NodeJS.ProcessEnv = process.env): string | null {
  if (process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return 'no display here (DISPLAY and WAYLAND_DISPLAY are unset), so the desktop window cannot open';
  }
  const binary = electronBinary();
  return binary.ok ? null : binary.reason;
}

/** Electron's npm package resolves (and on first use downloads) its binary when required. */
function electronBinary(): { ok: true; path: string } | { ok: false; reason: string } {
  const probe = spawnSync(process.execPath, ['-e', "process.stdout.write(require('electron'))"], {
    cwd: appRoot,
    encoding: 'utf8',
    timeout: 10 * 60_000,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (probe.status === 0 && probe.stdout) return { ok: true, path: probe.stdout };
  return { ok: false, reason: 'the Electron binary is not installed and could not be downloaded' };
}

/** Launches the desktop app; a crash within the first seconds counts as "cannot start". */
export async function launchElectron(folder: string | undefined): Promise<LaunchOutcome> {
  const reason = electronUnavailableReason();
  if (reason) return { kind: 'unavailable', reason };
  const binary = electronBinary();
  if (!binary.ok) return { kind: 'unavailable', reason: binary.reason };
  const started = Date.now();
  const child = spawn(binary.path, [appRoot, ...(folder ? [folder] : [])], { stdio: 'inherit' });
  const code = await new Promise<number>((res) => {
    child.once('error', () => res(-1));
    child.once('exit', (c, sig) => res(c ?? (sig ? 128 : 1)));
  });
  if (code !== 0 && Date.now() - started < 5000) {
    return { kind: 'unavailable', reason: `Electron exited at start-up with status ${code}` };
  }
  return { kind: 'exited', code };
}
