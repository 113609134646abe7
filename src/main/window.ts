// The main window: sandboxed, context-isolated, no Node, no navigation, no new windows.

import { BrowserWindow, shell, type WebContents } from 'electron';
import { join } from 'node:path';

export const WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  spellcheck: false,
} as const;

export function createMainWindow(opts: {
  preloadDir: string;
  /** app://rlwatch/index.html, or the dev server's URL under `electron-vite dev`. */
  page: string;
  icon: string;
}): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 860,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'rlwatch',
    icon: opts.icon,
    backgroundColor: '#111418',
    webPreferences: { ...WEB_PREFERENCES, preload: join(opts.preloadDir, 'index.cjs') },
  });
  lockDown(win.webContents);
  win.once('ready-to-show', () => win.show());
  void win.loadURL(opts.page);
  return win;
}

/** No navigation away from the app and no new windows; http(s) links go to the system browser. */
function lockDown(contents: WebContents): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event) => event.preventDefault());
  // Frames too (an iframe the page never has, or one injected): nothing navigates anywhere.
  contents.on('will-frame-navigate', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
}
