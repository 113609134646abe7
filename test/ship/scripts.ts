// Typed handles on the packaging scripts (plain JS under scripts/), for the tests in test/ship.
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface BuilderConfig {
  appId: string;
  asar: boolean;
  asarUnpack: string[];
  npmRebuild: boolean;
  electronFuses: Record<string, boolean>;
  files: string[];
  publish: { provider: string };
  linux: {
    target: string[];
    icon: string;
    mimeTypes: string[];
    executableArgs: string[];
    desktop: { entry: Record<string, string>; desktopActions: Record<string, Record<string, string>> };
  };
  mac: {
    target: { target: string; arch: string[] }[];
    icon: string;
    hardenedRuntime: boolean;
    entitlements: string;
    entitlementsInherit: string;
    extendInfo: { CFBundleDocumentTypes: { LSItemContentTypes: string[] }[] };
  };
  win: { target: { target: string; arch: string[] }[]; icon: string };
}

export interface PackageScript {
  builderConfigPath: string;
  EXIT_CANNOT_PACKAGE: number;
  loadBuilderConfig(path?: string): BuilderConfig;
  validateBuilderConfig(config?: unknown): Promise<void>;
  installedElectronVersion(): string;
  electronAvailability(opts: {
    version?: string;
    platform?: string;
    arch?: string;
    env?: Record<string, string | undefined>;
    probe?: (url: string) => Promise<string | null>;
  }): Promise<{ ok: true } | { ok: false; reason: string }>;
}

export interface IconScript {
  APP_ICON_SIZES: number[];
  HEALTH_STATES: string[];
  TRAY_SIZE: number;
  iconFiles(): { file: string; size?: number }[];
}

// Loaded by URL: the scripts are untyped JS, and these interfaces say what the tests rely on.
const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(repoRoot + path).href)) as T;

export const packageScript = (): Promise<PackageScript> => load<PackageScript>('scripts/package.js');
export const iconScript = (): Promise<IconScript> => load<IconScript>('scripts/make-icons.js');

export type SqliteResult = { ok: true; path: string } | { ok: false; reason: string; firstFailure: boolean };

export interface ElectronSqliteScript {
  ensureElectronSqlite(opts: {
    force?: boolean;
    electronVersion?: string;
    dir?: string;
    fetchBinary?: (target: {
      electron: string;
      sqlite: string;
    }) => { ok: true; file: string } | { ok: false; why: string };
  }): SqliteResult;
}

export interface StartScript {
  desktopWillStart(opts: {
    args: string[];
    platform: string;
    env: Record<string, string | undefined>;
    electronInstalled: boolean;
  }): boolean;
}

export const electronSqliteScript = (): Promise<ElectronSqliteScript> =>
  load<ElectronSqliteScript>('scripts/electron-sqlite.js');
export const startScript = (): Promise<StartScript> => load<StartScript>('scripts/start.js');
