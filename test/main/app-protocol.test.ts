// app://rlwatch/ serves the built renderer only; the dev server's URL is trusted only under electron-vite dev.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { launchEnv } from '../../src/cli/electron-launch';
import { APP_PAGE, appProtocolResponse, devRendererUrl } from '../../src/main/app-protocol';

const root = mkdtempSync(join(tmpdir(), 'rlwatch-app-protocol-'));
const rendererDir = join(root, 'renderer');
mkdirSync(join(rendererDir, 'assets'), { recursive: true });
writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>rlwatch</title>');
writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
writeFileSync(join(root, 'secret.txt'), 'outside the renderer');

const get = (url: string, method = 'GET'): Promise<Response> =>
  appProtocolResponse(rendererDir, { url, method });

describe('app:// protocol', () => {
  test('the page and its assets, with the CSP and their types', async () => {
    const page = await get(APP_PAGE);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>rlwatch</title>');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect((await get('app://rlwatch/')).status).toBe(200);
    const js = await get('app://rlwatch/assets/app.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
  });

  test('nothing outside the renderer folder, no other host, no other method', async () => {
    for (const p of [
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/%00',
      '/nope.js',
    ]) {
      const r = await get(`app://rlwatch${p}`);
      expect(r.status).toBe(404);
      expect(await r.text()).not.toContain('outside the renderer');
    }
    expect((await get('app://other/index.html')).status).toBe(404);
    expect((await get(APP_PAGE, 'POST')).status).toBe(405);
    expect((await get('not a url')).status).toBe(400);
  });

  test('the dev server URL only under electron-vite dev, unpackaged, on loopback', () => {
    const dev = { NODE_ENV_ELECTRON_VITE: 'development', ELECTRON_RENDERER_URL: 'http://localhost:5173' };
    expect(devRendererUrl(dev, false)).toBe('http://localhost:5173');
    expect(devRendererUrl(dev, true)).toBeNull();
    expect(devRendererUrl({ ELECTRON_RENDERER_URL: 'http://localhost:5173' }, false)).toBeNull();
    expect(devRendererUrl({ ...dev, ELECTRON_RENDERER_URL: 'https://evil.example/' }, false)).toBeNull();
    expect(devRendererUrl({ ...dev, ELECTRON_RENDERER_URL: 'file:///etc/passwd' }, false)).toBeNull();
  });

  test('rlwatch open starts Electron without the dev variables', () => {
    const env = launchEnv({
      PATH: '/usr/bin',
      NODE_ENV_ELECTRON_VITE: 'development',
      ELECTRON_RENDERER_URL: 'http://localhost:5173',
    });
    expect(env).toEqual({ PATH: '/usr/bin' });
  });
});
