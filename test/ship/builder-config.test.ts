// electron-builder.yml: electron-builder's schema accepts it, and it asks for the fuses, ids and targets #14 names.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { packageScript, repoRoot, type BuilderConfig, type PackageScript } from './scripts';

let script: PackageScript;
let config: BuilderConfig;
beforeAll(async () => {
  script = await packageScript();
  config = script.loadBuilderConfig();
});

describe('electron-builder configuration', () => {
  it("passes electron-builder's own schema validation", async () => {
    await expect(script.validateBuilderConfig(config)).resolves.toBeUndefined();
  });

  it('is rejected by the same validation when it names an option that does not exist', async () => {
    await expect(script.validateBuilderConfig({ ...config, asarUnpackk: ['x'] })).rejects.toThrow(
      /asarUnpackk/,
    );
  });

  it('sets every fuse: no RunAsNode, no NODE_OPTIONS or inspect flags, encrypted cookies, asar only, integrity', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      onlyLoadAppFromAsar: true,
      enableEmbeddedAsarIntegrityValidation: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('uses the app id that Electron main gives setAppUserModelId', () => {
    const main = readFileSync(join(repoRoot, 'src/main/index.ts'), 'utf8');
    const id = /export const APP_ID = '([^']+)'/.exec(main)?.[1];
    expect(id).toBeDefined();
    expect(main).toMatch(/app\.setAppUserModelId\(APP_ID\)/);
    expect(config.appId).toBe(id);
  });

  it('packs into an asar with the native SQLite module unpacked and rebuilt for Electron', () => {
    expect(config.asar).toBe(true);
    expect(config.asarUnpack).toEqual(
      expect.arrayContaining(['**/*.node', 'node_modules/better-sqlite3/**']),
    );
    expect(config.npmRebuild).toBe(true);
    // The dev-only Electron build of better-sqlite3 (build/electron) never ships.
    expect(config.files).toContain('!build/**');
  });

  it('targets AppImage and deb, dmg for arm64 and x64 with hardened runtime, and NSIS', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual([{ target: 'dmg', arch: ['arm64', 'x64'] }]);
    expect(config.mac.hardenedRuntime).toBe(true);
    expect(config.win.target.map((t) => t.target)).toEqual(['nsis']);
  });

  it('names entitlements that exist and allow the JIT, and icons that exist', () => {
    for (const plist of [config.mac.entitlements, config.mac.entitlementsInherit]) {
      const text = readFileSync(join(repoRoot, plist), 'utf8');
      expect(text).toMatch(/<key>com\.apple\.security\.cs\.allow-jit<\/key>\s*<true\/>/);
    }
    for (const icon of [config.linux.icon, config.mac.icon, config.win.icon])
      expect(existsSync(join(repoRoot, icon))).toBe(true);
  });

  it('offers "Open with rlwatch" on folders: Linux inode/directory with the folders passed, macOS dock drop', () => {
    expect(config.linux.mimeTypes).toContain('inode/directory');
    expect(config.linux.executableArgs).toEqual(['%F']);
    expect(config.linux.desktop.entry.Actions).toBe('open-folder;');
    expect(config.linux.desktop.desktopActions['open-folder']).toMatchObject({ Name: 'Open with rlwatch' });
    expect(config.linux.desktop.desktopActions['open-folder']?.Exec).toMatch(/ %F$/);
    const types = config.mac.extendInfo.CFBundleDocumentTypes.flatMap((t) => t.LSItemContentTypes);
    expect(types).toContain('public.folder');
  });

  it('publishes update metadata to GitHub Releases (read by electron-updater when enabled)', () => {
    expect(config.publish.provider).toBe('github');
  });
});
