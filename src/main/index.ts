// Electron main: lifecycle glue only. All logic lives in src/core; this wires it to windows, tray and menus.

import '../core/heap-flags';
import { app, BrowserWindow, dialog, ipcMain, Menu, nativeImage, protocol, session, Tray } from 'electron';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dispatch } from '../core/api/dispatch';
import { createHandlers } from '../core/app/handlers';
import { AppCore } from '../core/app/app-core';
import { ELECTRON_BINDING_HINT, openDesktopStore } from '../core/app/app-store';
import { startDemo, type RunningDemo } from '../core/demo/demo-writer';
import { useSqliteBinding } from '../core/sqlite-db/open-db';
import { createSystemSampler } from '../core/system';
import { folderPickerAction } from './folder-picker';
import { APP_PAGE, APP_SCHEME, appProtocolResponse, devRendererUrl } from './app-protocol';
import { folderFromArgv } from './launch-args';
import { forwardPushEvents, registerContract, rendererFrameCheck } from './ipc';
import { appMenuTemplate } from './menu';
import { notify } from './notifications';
import { applySessionPolicy } from './security';
import { TrayService, type Health } from './tray';
import { createMainWindow } from './window';

const here = dirname(fileURLToPath(import.meta.url));
const appRoot = join(here, '..', '..');
const resources = join(appRoot, 'resources');
/** The Electron-ABI build of better-sqlite3 (scripts/electron-sqlite.js), beside the Node one. */
const electronSqlite = join(appRoot, ELECTRON_BINDING_HINT);
const rendererDir = join(here, '..', 'renderer');
/** The page the window loads: the dev server's under `electron-vite dev`, else app://rlwatch/ from rendererDir. */
const rendererPage = devRendererUrl(process.env, app.isPackaged) ?? APP_PAGE;

// Before ready: app:// is a standard, secure origin (so the CSP's 'self' and fetch work as on https).
protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);

/** The app's identity on every OS: equal to `appId` in electron-builder.yml (a test checks both). */
export const APP_ID = 'io.rlwatch.desktop';

/** The tray picture per health: macOS menu-bar template images (monochrome, they follow the bar), else colour. */
function trayIconFile(health: Health, platform: NodeJS.Platform): string {
  return platform === 'darwin' ? `tray-${health}Template.png` : `tray-${health}.png`;
}

app.setAppUserModelId(APP_ID);

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  let win: BrowserWindow | null = null;
  let demo: RunningDemo | null = null;

  const showWindow = (): void => {
    if (!win || win.isDestroyed()) win = openWindow();
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  };

  const showFolderDialog = async (options: Electron.OpenDialogOptions): Promise<string | null> => {
    const parent = win && !win.isDestroyed() ? win : undefined;
    const r = parent ? await dialog.showOpenDialog(parent, options) : await dialog.showOpenDialog(options);
    return r.canceled ? null : (r.filePaths[0] ?? null);
  };
  const chooseFolder = (): Promise<string | null> =>
    showFolderDialog({ title: 'Open a run folder', properties: ['openDirectory'] });

  /** "Export run…": where the files go (a new folder may be made in the dialog), starting at the last one. */
  const pickExportFolder = (defaultPath: string | null): Promise<string | null> =>
    showFolderDialog({
      title: 'Export into a folder',
      buttonLabel: 'Export here',
      properties: ['openDirectory', 'createDirectory', 'promptToCreate'],
      ...(defaultPath ? { defaultPath } : {}),
    });

  // The tracker databases (trackio, mlflow.db) are read with the same Electron-ABI build as the app's store.
  const sqliteBinding = existsSync(electronSqlite) ? electronSqlite : null;
  useSqliteBinding(sqliteBinding);
  const core = new AppCore({
    host: {
      mode: 'electron',
      version: app.getVersion(),
      allowOpenFolder: true,
      chooseFolder,
      pickExportFolder,
    },
    store: openDesktopStore({
      dir: app.getPath('userData'),
      nativeBinding: sqliteBinding,
    }),
    createSampler: () => createSystemSampler(),
  });
  const handlers = createHandlers(core);

  const openWindow = (): BrowserWindow =>
    createMainWindow({
      preloadDir: join(here, '..', 'preload'),
      page: rendererPage,
      icon: join(resources, 'icon.png'),
    });

  /** The window says what failed (a modal box: it is there even before the renderer has loaded). */
  const showError = (message: string): void => dialog.showErrorBox('rlwatch', message);

  const openFolderOrDemo = async (folder: string | undefined): Promise<void> => {
    let target = folder;
    if (!target) {
      const dir = mkdtempSync(join(tmpdir(), 'rlwatch-demo-'));
      demo = startDemo({ dir });
      target = dir;
    }
    try {
      await core.open(target, { until: 'first-run' });
    } catch (err) {
      showError(`Cannot open ${target}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  // A second `rlwatch open DIR` (or "Open with rlwatch") hands its folder here; relative to where it ran.
  app.on('second-instance', (_event, argv, workingDirectory) => {
    showWindow();
    const folder = folderFromArgv(argv, app.isPackaged, workingDirectory);
    if (folder) void openFolderOrDemo(folder);
  });

  // macOS: a folder dropped on the dock icon (or opened with the app) arrives here, even before ready.
  let ready = false;
  let launchFolder: string | undefined;
  app.on('open-file', (event, path) => {
    event.preventDefault();
    if (!ready) {
      launchFolder = path;
      return;
    }
    showWindow();
    void openFolderOrDemo(path);
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  // Quit waits once for the core to stop: buffered system samples are written and the WAL folded back.
  let disposed = false;
  app.on('before-quit', (event) => {
    if (disposed) return;
    event.preventDefault();
    void Promise.allSettled([demo?.stop(), core.dispose()]).then(() => {
      disposed = true;
      app.quit();
    });
  });

  void app.whenReady().then(async () => {
    applySessionPolicy(session.defaultSession);
    protocol.handle(APP_SCHEME, (request) => appProtocolResponse(rendererDir, request));
    const contents = (): Electron.WebContents | null => (win && !win.isDestroyed() ? win.webContents : null);
    registerContract(ipcMain, handlers, rendererFrameCheck({ contents, rendererUrl: rendererPage }));
    win = openWindow();
    forwardPushEvents(core.bus, contents);

    const pickFolder = folderPickerAction(() => dispatch(handlers, 'runs.chooseFolder', {}), showError);
    Menu.setApplicationMenu(
      Menu.buildFromTemplate(
        appMenuTemplate({ openFolder: pickFolder, isMac: process.platform === 'darwin' }),
      ),
    );

    const icons = new Map<Health, Electron.NativeImage>();
    const tray = new TrayService({
      createTray: (icon) => new Tray(icon),
      buildMenu: (template) => Menu.buildFromTemplate(template),
      icon: (health) => {
        let img = icons.get(health);
        if (!img)
          icons.set(
            health,
            (img = nativeImage.createFromPath(join(resources, trayIconFile(health, process.platform)))),
          );
        return img;
      },
      onShow: showWindow,
      onOpenFolder: pickFolder,
      onFocus: (focus) => {
        showWindow();
        core.focus(focus);
      },
      onQuit: () => app.quit(),
    });
    tray.render();
    // The model is computed in core; re-rendering is free when nothing the tray shows changed.
    const renderTray = (): void => tray.update(core.trayModel());
    core.bus.on('runs.changed', renderTray);
    core.bus.on('alerts.changed', renderTray);
    core.onNotification((n) =>
      notify(n.title, n.body, () => {
        showWindow();
        core.focus(n.focus);
      }),
    );
    core.bus.on('app.notice', (n) => {
      if (n.level !== 'info') notify('rlwatch', n.message, showWindow);
    });

    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) showWindow();
    });

    ready = true;
    await openFolderOrDemo(launchFolder ?? folderFromArgv(process.argv, app.isPackaged, process.cwd()));
  });
}
