// A stand-in for the `electron` module that records how main wires itself. Checks wiring only: no real
// window, IPC or tray exists here. Once main has pushed runs to the window, re-rendered the tray for an
// alert and shown a notification (whose click it simulates), the stub exercises the registered handlers
// with fake senders, writes everything to $RLWATCH_WIRING_OUT and exits (after 20 s it writes what it has).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const record = {
  singleInstanceLock: false,
  windows: [],
  handled: [],
  sent: [],
  permissionRequest: null,
  permissionCheck: null,
  cspHeader: null,
  openHandler: null,
  navigationPrevented: null,
  frameNavigationPrevented: null,
  schemes: [],
  loadedUrl: null,
  appProtocol: null,
  trayCreated: false,
  trayMenu: [],
  trayIcons: [],
  trayTooltips: [],
  notifications: [],
  appMenu: [],
  errorBoxes: [],
  calls: {},
};
let appMenuTemplate = [];
let appProtocolHandler = null;
let nextPick = { canceled: true, filePaths: [] };
const handlers = new Map();
let firstWindow = null;
let finished = false;
const userData = process.env.RLWATCH_WIRING_USERDATA ?? mkdtempSync(join(tmpdir(), 'rlwatch-userdata-'));

function maybeFinish() {
  const pushed = record.sent.some((s) => s.channel === 'rlwatch:runs.changed');
  const trayAlert = record.trayMenu.some((l) => typeof l === 'string' && l.includes('kl-above-target'));
  const focused = record.sent.some((s) => s.channel === 'rlwatch:app.focus');
  if (pushed && trayAlert && focused) void finish();
}
setTimeout(() => void finish(), 20_000).unref();

async function finish() {
  if (finished) return;
  finished = true;
  const wc = firstWindow.webContents;
  const trusted = { sender: wc, senderFrame: wc.mainFrame };
  const untrusted = { sender: wc, senderFrame: { url: 'https://evil.example/' } };
  // An iframe showing the renderer page itself: not the top frame, so refused too.
  const subframe = { sender: wc, senderFrame: { url: wc._url } };
  const goneFrame = { sender: wc, senderFrame: null };
  const call = async (name, event, args) => handlers.get(name)?.(event, args);
  record.calls = {
    appInfo: await call('rlwatch:app.info', trusted, {}),
    alertsList: await call('rlwatch:alerts.list', trusted, {}),
    settingsGet: await call('rlwatch:settings.get', trusted, {}),
    runsList: await call('rlwatch:runs.list', trusted, {}),
    untrusted: await call('rlwatch:app.info', untrusted, {}),
    subframe: await call('rlwatch:app.info', subframe, {}),
    goneFrame: await call('rlwatch:app.info', goneFrame, {}),
    badArgs: await call('rlwatch:series.get', trusted, { run: 42 }),
    extraArgs: await call('rlwatch:runs.list', trusted, { sneaky: true }),
  };
  // File › Open Folder… on a folder that cannot be opened: main shows the error (an unhandled rejection
  // would end this process with status 1 instead).
  nextPick = { canceled: false, filePaths: [join(tmpdir(), `rlwatch-no-such-folder-${process.pid}`)] };
  const file = appMenuTemplate.find((item) => item.label === 'File');
  file?.submenu.find((item) => item.label === 'Open Folder…')?.click();
  for (let i = 0; i < 100 && record.errorBoxes.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  // The page over app://: the built index.html, and nothing outside the renderer folder.
  if (appProtocolHandler) {
    const page = await appProtocolHandler({ url: 'app://rlwatch/index.html', method: 'GET' });
    const escape = await appProtocolHandler({ url: 'app://rlwatch/%2e%2e/main/index.js', method: 'GET' });
    record.appProtocol = {
      page: page.status,
      pageType: page.headers.get('content-type'),
      pageCsp: page.headers.get('content-security-policy'),
      escape: escape.status,
    };
  }
  record.handled = [...handlers.keys()];
  writeFileSync(process.env.RLWATCH_WIRING_OUT, JSON.stringify(record, null, 2));
  process.exit(0);
}

class WebContents {
  constructor() {
    this._url = null;
    this._listeners = {};
    this.mainFrame = { url: null };
  }
  setWindowOpenHandler(fn) {
    record.openHandler = fn({ url: 'https://example.com/' });
  }
  on(event, fn) {
    this._listeners[event] = fn;
    if (event === 'will-navigate' || event === 'will-frame-navigate') {
      let prevented = false;
      fn({ preventDefault: () => (prevented = true), url: 'https://example.com/' }, 'https://example.com/');
      record[event === 'will-navigate' ? 'navigationPrevented' : 'frameNavigationPrevented'] = prevented;
    }
  }
  send(channel, payload) {
    record.sent.push({ channel, kind: Array.isArray(payload) ? 'array' : typeof payload });
    maybeFinish();
  }
  isDestroyed() {
    return false;
  }
}

export class BrowserWindow {
  constructor(opts) {
    record.windows.push(opts);
    this.webContents = new WebContents();
    if (!firstWindow) BrowserWindow._first(this);
  }
  static _first(win) {
    firstWindow = win;
  }
  static getAllWindows() {
    return firstWindow ? [firstWindow] : [];
  }
  once() {}
  on() {}
  show() {}
  focus() {}
  restore() {}
  isMinimized() {
    return false;
  }
  isDestroyed() {
    return false;
  }
  loadFile(path) {
    this.webContents._url = this.webContents.mainFrame.url = pathToFileURL(path).href;
    return Promise.resolve();
  }
  loadURL(url) {
    record.loadedUrl = url;
    this.webContents._url = this.webContents.mainFrame.url = url;
    return Promise.resolve();
  }
}

export const app = {
  isPackaged: false,
  requestSingleInstanceLock() {
    record.singleInstanceLock = true;
    return true;
  },
  setAppUserModelId(id) {
    record.appUserModelId = id;
  },
  getVersion: () => '0.0.0-wiring',
  getPath: (name) => (name === 'userData' ? userData : tmpdir()),
  on() {},
  quit() {},
  whenReady: () => Promise.resolve(),
};

export const protocol = {
  registerSchemesAsPrivileged(schemes) {
    record.schemes = schemes;
  },
  handle(scheme, fn) {
    if (scheme === 'app') appProtocolHandler = fn;
  },
};

export const ipcMain = {
  handle(name, fn) {
    handlers.set(name, fn);
  },
  removeHandler(name) {
    handlers.delete(name);
  },
};

export const session = {
  defaultSession: {
    setPermissionRequestHandler(fn) {
      fn(null, 'media', (allowed) => (record.permissionRequest = allowed));
    },
    setPermissionCheckHandler(fn) {
      record.permissionCheck = fn(null, 'media');
    },
    webRequest: {
      onHeadersReceived(fn) {
        fn(
          { responseHeaders: {} },
          (r) => (record.cspHeader = r.responseHeaders['Content-Security-Policy']?.[0] ?? null),
        );
      },
    },
  },
};

export const Menu = {
  buildFromTemplate: (t) => t,
  setApplicationMenu(m) {
    appMenuTemplate = m;
    record.appMenu = m.map((i) => i.label ?? i.role);
  },
};

export class Tray {
  constructor(icon) {
    record.trayCreated = true;
    record.trayIcons.push(icon.path);
  }
  setImage(img) {
    record.trayIcons.push(img.path);
  }
  setToolTip(t) {
    record.trayTooltips.push(t);
  }
  setContextMenu(m) {
    record.trayMenu = m.map((i) => i.label ?? i.type);
    maybeFinish();
  }
  destroy() {}
}

export const nativeImage = { createFromPath: (p) => ({ path: p }) };
export const dialog = {
  showOpenDialog: async () => nextPick,
  showErrorBox(title, message) {
    record.errorBoxes.push({ title, message });
  },
};
export const shell = { openExternal: async () => {} };
export class Notification {
  constructor(opts) {
    this.opts = opts;
    this.listeners = {};
  }
  static isSupported() {
    return true;
  }
  on(event, fn) {
    this.listeners[event] = fn;
  }
  show() {
    record.notifications.push({ title: this.opts.title, body: this.opts.body });
    // The user clicks the first notification: main should show the window and push app.focus.
    if (record.notifications.length === 1) setTimeout(() => this.listeners.click?.(), 0);
  }
}
export const contextBridge = { exposeInMainWorld() {} };
export const ipcRenderer = { invoke() {}, on() {}, removeListener() {} };
export default {
  app,
  BrowserWindow,
  ipcMain,
  protocol,
  session,
  Menu,
  Tray,
  nativeImage,
  dialog,
  shell,
  Notification,
};
