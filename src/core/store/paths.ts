// Where the CLI keeps its database when nobody injects a path (Electron passes app.getPath('userData')).

import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

export const STORE_FILE_NAME = 'rlwatch.db';

export interface PlatformEnv {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  home: string;
}

/** The per-user config directory for rlwatch: the same place Electron's userData resolves to for an
 * app named rlwatch, so the CLI and the app share one database. Inputs injectable for tests. */
export function defaultStoreDir(
  p: PlatformEnv = { platform: process.platform, env: process.env, home: homedir() },
): string {
  if (p.platform === 'win32') {
    const appData = p.env.APPDATA || win32.join(p.home, 'AppData', 'Roaming');
    return win32.join(appData, 'rlwatch');
  }
  if (p.platform === 'darwin') return posix.join(p.home, 'Library', 'Application Support', 'rlwatch');
  // XDG says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const xdg = p.env.XDG_CONFIG_HOME;
  const base = xdg && xdg.startsWith('/') ? xdg : posix.join(p.home, '.config');
  return posix.join(base, 'rlwatch');
}

export function defaultStorePath(
  p: PlatformEnv = { platform: process.platform, env: process.env, home: homedir() },
): string {
  const path = p.platform === 'win32' ? win32 : posix;
  return path.join(defaultStoreDir(p), STORE_FILE_NAME);
}
