// Wiring check of the built main bundle under a stand-in `electron` module. It proves how main wires
// itself (channels, window security, tray, menu); it does not prove the desktop app runs.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { ipcName, REQUEST_CHANNELS } from '../../src/shared/channels';

const root = join(import.meta.dirname, '..', '..');
const mainBundle = join(root, 'out', 'main', 'index.js');

interface WiringRecord {
  singleInstanceLock: boolean;
  windows: { webPreferences: Record<string, unknown> }[];
  handled: string[];
  sent: { channel: string; kind: string }[];
  permissionRequest: boolean | null;
  permissionCheck: boolean | null;
  cspHeader: string | null;
  openHandler: { action: string } | null;
  navigationPrevented: boolean | null;
  trayCreated: boolean;
  trayMenu: string[];
  appMenu: string[];
  calls: Record<string, { ok: boolean; error?: { code: string; message: string }; value?: unknown }>;
}

describe('main bundle wiring (stand-in electron)', () => {
  let rec: WiringRecord;

  beforeAll(() => {
    expect(existsSync(mainBundle), 'out/main/index.js missing: the e2e runner builds it first').toBe(true);
    const out = join(mkdtempSync(join(tmpdir(), 'rlwatch-wiring-')), 'record.json');
    const env = { ...process.env, RLWATCH_WIRING_OUT: out };
    const r = spawnSync(
      process.execPath,
      ['--import', join(import.meta.dirname, 'register-electron-stub.mjs'), mainBundle],
      {
        env,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(r.status, r.stderr).toBe(0);
    rec = JSON.parse(readFileSync(out, 'utf8')) as WiringRecord;
  });

  test('takes the single-instance lock', () => {
    expect(rec.singleInstanceLock).toBe(true);
  });

  test('registers a handler for every contract channel and nothing else', () => {
    expect([...rec.handled].sort()).toEqual(REQUEST_CHANNELS.map(ipcName).sort());
  });

  test('the window is sandboxed and isolated, with the CommonJS preload', () => {
    const prefs = rec.windows[0]!.webPreferences;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    });
    expect(String(prefs.preload)).toMatch(/preload[/\\]index\.cjs$/);
    expect(existsSync(String(prefs.preload))).toBe(true);
  });

  test('navigation, new windows and permission requests are denied; the CSP is strict', () => {
    expect(rec.openHandler).toEqual({ action: 'deny' });
    expect(rec.navigationPrevented).toBe(true);
    expect(rec.permissionRequest).toBe(false);
    expect(rec.permissionCheck).toBe(false);
    expect(rec.cspHeader).toMatch(/default-src 'self'/);
    expect(rec.cspHeader).not.toMatch(/unsafe-eval/);
  });

  test('tray and app menu exist with Open Folder', () => {
    expect(rec.trayCreated).toBe(true);
    expect(rec.trayMenu).toContain('Open Folder…');
    expect(rec.appMenu).toContain('File');
  });

  test('handlers answer the trusted renderer and refuse bad senders and bad arguments', () => {
    expect(rec.calls.appInfo).toMatchObject({ ok: true, value: { mode: 'electron', canChooseFolder: true } });
    expect(rec.calls.runsList?.ok).toBe(true);
    expect(rec.calls.untrusted).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    expect(rec.calls.badArgs).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    expect(rec.calls.extraArgs).toMatchObject({ ok: false, error: { code: 'bad-request' } });
  });

  test('push events reach the window (the demo run is announced)', () => {
    expect(rec.sent.some((s) => s.channel === 'rlwatch:runs.changed' && s.kind === 'array')).toBe(true);
  });
});
