// IPC sender check: only the window's top frame at the renderer's page may call in; each refusal is logged once.

import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { describe, expect, test, vi } from 'vitest';
import { registerContract, rendererFrameCheck } from '../../src/main/ipc';
import { ipcName, REQUEST_CHANNELS } from '../../src/shared/channels';
import type { Handlers } from '../../src/shared/contract';

const RENDERER = 'file:///app/out/renderer/index.html';

/** A window's contents with its top frame and one iframe, as far as the check looks at them. */
function fakeContents(url = RENDERER) {
  const mainFrame = { url, origin: 'file://' };
  const iframe = { url, origin: 'file://' };
  const contents = { mainFrame, isDestroyed: () => false } as unknown as WebContents;
  return { contents, mainFrame, iframe };
}

const eventFrom = (sender: WebContents, senderFrame: unknown) =>
  ({ sender, senderFrame }) as unknown as IpcMainInvokeEvent;

describe('rendererFrameCheck', () => {
  const win = fakeContents();
  const check = rendererFrameCheck({ contents: () => win.contents, rendererUrl: RENDERER });

  test('the top frame at the renderer page may call in (a query or hash does not matter)', () => {
    expect(check(eventFrom(win.contents, win.mainFrame))).toBeNull();
    const withQuery = fakeContents(`${RENDERER}?theme=dark#x`);
    const c = rendererFrameCheck({ contents: () => withQuery.contents, rendererUrl: RENDERER });
    expect(c(eventFrom(withQuery.contents, withQuery.mainFrame))).toBeNull();
  });

  test('a subframe at the same URL is refused: it is not the top frame', () => {
    expect(check(eventFrom(win.contents, win.iframe))).toMatch(/top frame/);
  });

  test('a sender frame that is gone (navigated or destroyed: null) is refused', () => {
    expect(check(eventFrom(win.contents, null))).toMatch(/frame/);
    expect(check(eventFrom(win.contents, undefined))).toMatch(/frame/);
  });

  test('another webContents, another origin or another page is refused', () => {
    const other = fakeContents();
    expect(check(eventFrom(other.contents, other.mainFrame))).toMatch(/window/);
    const evil = fakeContents('https://evil.example/out/renderer/index.html');
    const onEvil = rendererFrameCheck({ contents: () => evil.contents, rendererUrl: RENDERER });
    expect(onEvil(eventFrom(evil.contents, evil.mainFrame))).toMatch(/origin/);
    const page = fakeContents('file:///tmp/other.html');
    const onPage = rendererFrameCheck({ contents: () => page.contents, rendererUrl: RENDERER });
    expect(onPage(eventFrom(page.contents, page.mainFrame))).toMatch(/page/);
  });

  test('the dev server renderer: same origin and page', () => {
    const dev = fakeContents('http://localhost:5173/');
    const c = rendererFrameCheck({ contents: () => dev.contents, rendererUrl: 'http://localhost:5173/' });
    expect(c(eventFrom(dev.contents, dev.mainFrame))).toBeNull();
    const port = fakeContents('http://localhost:5174/');
    const c2 = rendererFrameCheck({ contents: () => port.contents, rendererUrl: 'http://localhost:5173/' });
    expect(c2(eventFrom(port.contents, port.mainFrame))).toMatch(/origin/);
  });

  test('no window (closed) refuses everything', () => {
    const none = rendererFrameCheck({ contents: () => null, rendererUrl: RENDERER });
    expect(none(eventFrom(win.contents, win.mainFrame))).toMatch(/window/);
  });
});

describe('registerContract', () => {
  function register() {
    const registered = new Map<string, (event: IpcMainInvokeEvent, args: unknown) => unknown>();
    const ipcMain = {
      handle: (name: string, fn: (event: IpcMainInvokeEvent, args: unknown) => unknown) =>
        registered.set(name, fn),
      removeHandler: (name: string) => registered.delete(name),
    } as unknown as IpcMain;
    const win = fakeContents();
    const handlers = { 'app.info': vi.fn(() => ({ mode: 'electron' })) } as unknown as Handlers;
    const log = vi.fn();
    const unregister = registerContract(
      ipcMain,
      handlers,
      rendererFrameCheck({ contents: () => win.contents, rendererUrl: RENDERER }),
      log,
    );
    return { registered, win, handlers, log, unregister };
  }

  test('every channel goes through the check; the trusted frame is answered', async () => {
    const { registered, win, handlers, log, unregister } = register();
    expect([...registered.keys()].sort()).toEqual(REQUEST_CHANNELS.map(ipcName).sort());
    const answer = await registered.get(ipcName('app.info'))!(eventFrom(win.contents, win.mainFrame), {});
    expect(answer).toEqual({ ok: true, value: { mode: 'electron' } });
    expect(handlers['app.info']).toHaveBeenCalledTimes(1);
    expect(log).not.toHaveBeenCalled();
    unregister();
    expect(registered.size).toBe(0);
  });

  test('a refusal answers bad-request without calling the handler, logged once with channel and reason', async () => {
    const { registered, win, handlers, log } = register();
    for (const channel of REQUEST_CHANNELS) {
      const answer = await registered.get(ipcName(channel))!(eventFrom(win.contents, win.iframe), {});
      expect(answer).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    }
    expect(handlers['app.info']).not.toHaveBeenCalled();
    expect(log).toHaveBeenCalledTimes(REQUEST_CHANNELS.length);
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/app\.info.*top frame/));
  });

  test('a check that throws (a frame torn down mid-call) is a refusal, not a crash', async () => {
    const { registered, win, log } = register();
    const event = { sender: win.contents } as IpcMainInvokeEvent;
    Object.defineProperty(event, 'senderFrame', {
      get() {
        throw new Error('Render frame was disposed before WebFrameMain could be accessed');
      },
    });
    const answer = await registered.get(ipcName('runs.list'))!(event, {});
    expect(answer).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    expect(log).toHaveBeenCalledExactlyOnceWith(expect.stringMatching(/runs\.list.*disposed/));
  });
});
