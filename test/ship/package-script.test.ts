// `npm run package` where Electron's zip cannot be had: the config is validated, then one line and exit 2.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageScript, repoRoot, type PackageScript } from './scripts';

let script: PackageScript;
const cache = mkdtempSync(join(tmpdir(), 'rlwatch-electron-cache-'));
beforeAll(async () => {
  script = await packageScript();
});
afterAll(() => rmSync(cache, { recursive: true, force: true }));

const unreachable = async (): Promise<string> => 'example.invalid is unreachable (ENOTFOUND)';
const neverCalled = async (): Promise<string> => {
  throw new Error('the probe must not run when the zip is cached');
};

describe('npm run package', () => {
  it('stops with one line and exit status 2 when the Electron zip can be neither found nor fetched', () => {
    const r = spawnSync(process.execPath, ['scripts/package.js'], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 30_000,
      // Nothing listens on port 9 here: the probe is refused at once instead of waiting on the network.
      env: { ...process.env, ELECTRON_CACHE: cache, ELECTRON_MIRROR: 'http://127.0.0.1:9/' },
    });
    expect(r.status).toBe(script.EXIT_CANNOT_PACKAGE);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^rlwatch: cannot package here: Electron [\d.]+'s electron-v[\d.]+-\w+-\w+\.zip cannot be fetched: 127\.0\.0\.1:9 is unreachable .*; electron-builder\.yml is valid, nothing was built\.$/,
    );
  });

  it('asks the mirror for the installed Electron version, platform and arch', async () => {
    const asked: string[] = [];
    const result = await script.electronAvailability({
      platform: 'linux',
      arch: 'x64',
      env: { ELECTRON_CACHE: cache, ELECTRON_MIRROR: 'https://mirror.example/electron' },
      probe: async (url) => {
        asked.push(url);
        return null;
      },
    });
    const v = script.installedElectronVersion();
    expect(result).toEqual({ ok: true });
    expect(asked).toEqual([`https://mirror.example/electron/v${v}/electron-v${v}-linux-x64.zip`]);
  });

  it('says why when the mirror cannot be reached', async () => {
    const result = await script.electronAvailability({
      version: '45.4.1',
      platform: 'darwin',
      arch: 'arm64',
      env: { ELECTRON_CACHE: cache },
      probe: unreachable,
    });
    expect(result).toEqual({
      ok: false,
      reason:
        "Electron 45.4.1's electron-v45.4.1-darwin-arm64.zip cannot be fetched: example.invalid is unreachable (ENOTFOUND)",
    });
  });

  it('needs no network when the zip is in the Electron cache (a hashed subfolder, as @electron/get keeps it)', async () => {
    const hashed = join(cache, 'abc123');
    mkdirSync(hashed, { recursive: true });
    writeFileSync(join(hashed, 'electron-v45.4.1-win32-x64.zip'), '');
    const result = await script.electronAvailability({
      version: '45.4.1',
      platform: 'win32',
      arch: 'x64',
      env: { ELECTRON_CACHE: cache },
      probe: neverCalled,
    });
    expect(result).toEqual({ ok: true });
  });
});
