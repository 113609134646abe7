// Opens the store the hosts use: SQLite (or memory, by request or by failure) wrapped so later IO errors degrade.

import { join } from 'node:path';
import {
  DEFAULT_RETENTION,
  defaultStorePath,
  describeStoreFailure,
  MemoryStore,
  openStore,
  ResilientStore,
  STORE_FILE_NAME,
  type OpenStoreOptions,
} from '../store';

export type AppStore = ResilientStore;

/**
 * Where serve keeps its database: RLWATCH_STORE=memory keeps it in memory (tests), any other value is
 * a database path, unset means the per-user default (shared with the desktop app). The test config sets
 * RLWATCH_STORE=memory, so nothing a test starts touches the real home.
 */
export function storePathFromEnv(env: NodeJS.ProcessEnv = process.env): string | null {
  const v = env.RLWATCH_STORE?.trim();
  if (v === undefined || v === '') return defaultStorePath();
  return v === 'memory' ? null : v;
}

export function openAppStore(opts: OpenStoreOptions): AppStore {
  return new ResilientStore(openStore(opts), { ...DEFAULT_RETENTION, ...opts.retention });
}

export const ELECTRON_BINDING_HINT = 'build/electron/better_sqlite3.node';

/**
 * The desktop app's store: rlwatch.db in Electron's userData, loaded through the Electron-ABI build of
 * better-sqlite3. Without that build the Node one would fail to load anyway (another ABI), so the app
 * runs in memory at once and says why.
 */
export function openDesktopStore(opts: { dir: string; nativeBinding: string | null }): AppStore {
  const path = join(opts.dir, STORE_FILE_NAME);
  if (opts.nativeBinding === null) {
    const reason = describeStoreFailure(
      'native-module',
      `the Electron build (${ELECTRON_BINDING_HINT}) is missing; run 'node scripts/electron-sqlite.js' to fetch it`,
    );
    return new ResilientStore(new MemoryStore({ persistent: false, kind: 'native-module', reason, path }));
  }
  return openAppStore({ path, nativeBinding: opts.nativeBinding });
}
