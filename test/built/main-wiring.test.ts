// Wiring check of the built main bundle under a stand-in `electron` module. It proves how main wires
// itself (channels, window security, tray, menu, notifications, store); it does not prove the desktop app runs.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { ipcName, REQUEST_CHANNELS } from '../../src/shared/channels';
import { EventFileWriter } from '../../src/core/tfevents/writer';

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
  frameNavigationPrevented: boolean | null;
  schemes: { scheme: string; privileges: Record<string, boolean> }[];
  loadedUrl: string | null;
  appProtocol: { page: number; pageType: string | null; pageCsp: string | null; escape: number } | null;
  trayCreated: boolean;
  trayMenu: string[];
  trayIcons: string[];
  trayTooltips: string[];
  notifications: { title: string; body: string }[];
  appMenu: string[];
  errorBoxes: { title: string; message: string }[];
  calls: Record<string, { ok: boolean; error?: { code: string; message: string }; value?: unknown }>;
}

describe('main bundle wiring (stand-in electron)', () => {
  let rec: WiringRecord;

  beforeAll(() => {
    expect(existsSync(mainBundle), 'out/main/index.js missing: the e2e runner builds it first').toBe(true);
    const tmp = mkdtempSync(join(tmpdir(), 'rlwatch-wiring-'));
    const out = join(tmp, 'record.json');
    // A run whose KL sits above its target: main must raise the alert, re-render the tray and notify.
    const run = join(tmp, 'runs', 'run1');
    mkdirSync(run, { recursive: true });
    writeFileSync(join(run, 'config.json'), JSON.stringify({ target_kl: 0.02 }));
    const w = new EventFileWriter(run, { wallTime: 1000 });
    for (let i = 0; i < 12; i++) w.scalars(i, [{ tag: 'approx_kl', value: 0.03 }], 'simple', 1000 + i);
    w.close();
    const userData = join(tmp, 'userData');
    mkdirSync(userData);
    const env = { ...process.env, RLWATCH_WIRING_OUT: out, RLWATCH_WIRING_USERDATA: userData };
    const r = spawnSync(
      process.execPath,
      ['--import', join(import.meta.dirname, 'register-electron-stub.mjs'), mainBundle, join(tmp, 'runs')],
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

  test('the window loads app://rlwatch/ (a standard, secure scheme) served from the renderer folder only', () => {
    expect(rec.loadedUrl).toBe('app://rlwatch/index.html');
    expect(rec.schemes).toEqual([
      { scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) },
    ]);
    expect(rec.appProtocol).toMatchObject({ page: 200, escape: 404 });
    expect(rec.appProtocol!.pageType).toMatch(/text\/html/);
    expect(rec.appProtocol!.pageCsp).toMatch(/script-src 'self'/);
  });

  test('navigation, new windows and permission requests are denied; the CSP is strict', () => {
    expect(rec.openHandler).toEqual({ action: 'deny' });
    expect(rec.navigationPrevented).toBe(true);
    expect(rec.frameNavigationPrevented).toBe(true);
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

  test('Open Folder… on a folder that cannot be opened shows the error (no unhandled rejection)', () => {
    expect(rec.errorBoxes).toEqual([
      { title: 'rlwatch', message: expect.stringMatching(/cannot open .*rlwatch-no-such-folder-/) },
    ]);
  });

  test('handlers answer the trusted renderer and refuse bad senders and bad arguments', () => {
    expect(rec.calls.appInfo).toMatchObject({ ok: true, value: { mode: 'electron', canChooseFolder: true } });
    expect(rec.calls.runsList?.ok).toBe(true);
    expect(rec.calls.untrusted).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    expect(rec.calls.subframe).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    expect(rec.calls.goneFrame).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    expect(rec.calls.badArgs).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    expect(rec.calls.extraArgs).toMatchObject({ ok: false, error: { code: 'bad-request' } });
  });

  test('push events reach the window (the run is announced)', () => {
    expect(rec.sent.some((s) => s.channel === 'rlwatch:runs.changed' && s.kind === 'array')).toBe(true);
    expect(rec.sent.some((s) => s.channel === 'rlwatch:alerts.changed')).toBe(true);
  });

  test('the tray is re-rendered for the alert: warning icon, the run with its key numbers and the alert', () => {
    expect(rec.trayIcons[0]).toMatch(/tray-ok\.png$/);
    expect(rec.trayIcons.at(-1)).toMatch(/tray-warning\.png$/);
    expect(rec.trayTooltips.at(-1)).toBe('rlwatch — 1 active alert (warning)');
    expect(rec.trayMenu.some((l) => /^run1 {2}step 11 · KL 0\.03$/.test(l))).toBe(true);
    expect(rec.trayMenu.some((l) => /kl-above-target \(approx_kl\)/.test(l))).toBe(true);
  });

  test('a new alert is notified once; clicking it focuses the run at the tag and step', () => {
    expect(rec.notifications).toHaveLength(1);
    expect(rec.notifications[0]!.title).toBe('Warning: KL above target — run1');
    expect(rec.sent.some((s) => s.channel === 'rlwatch:app.focus' && s.kind === 'object')).toBe(true);
  });

  test('without the Electron build of better-sqlite3 the app runs in memory and says why', () => {
    expect(rec.calls.appInfo).toMatchObject({ value: { store: { persistent: false } } });
    const info = rec.calls.appInfo!.value as { store: { message: string } };
    expect(info.store.message).toMatch(/better-sqlite3/);
    expect(rec.calls.alertsList).toMatchObject({
      ok: true,
      value: [{ rule: 'kl-above-target', active: true }],
    });
    expect(rec.calls.settingsGet).toMatchObject({ ok: true, value: { notifications: true } });
  });
});
