// Registers every contract channel on ipcMain (validated by dispatch) and forwards push events to the window.

import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { ipcName, REQUEST_CHANNELS } from '../shared/channels';
import { fail, type Result } from '../shared/result';
import { dispatch } from '../core/api/dispatch';
import type { Handlers } from '../shared/contract';
import type { AppBus } from '../core/app/bus';
import { forwardToRenderer } from '../core/app/renderer-feed';

/** Why a request is refused, or null when it may call in. */
export type SenderCheck = (event: IpcMainInvokeEvent) => string | null;

/**
 * Only our own renderer's top frame may call in: the sender is the window's contents, the sending frame is
 * its main frame (not an iframe; null once the frame navigated or was destroyed), and that frame shows the
 * renderer page (origin and path; query and hash aside). VS Code checks the sender frame the same way.
 */
export function rendererFrameCheck(opts: {
  contents: () => WebContents | null;
  rendererUrl: string;
}): SenderCheck {
  const expected = pageOf(opts.rendererUrl);
  return (event) => {
    const contents = opts.contents();
    if (contents === null || contents.isDestroyed()) return 'no window is open';
    if (event.sender !== contents) return "the sender is not the window's contents";
    const frame = event.senderFrame ?? null;
    if (frame === null) return 'the sender frame is gone (navigated or destroyed)';
    if (frame !== contents.mainFrame) return 'the sender is not the top frame';
    const page = pageOf(frame.url);
    if (page.origin !== expected.origin) return `the frame's origin ${page.origin} is not the renderer's`;
    if (page.path !== expected.path) return `the frame shows ${page.path}, not the renderer page`;
    return null;
  };
}

/** A URL's origin (file: URLs have no WHATWG origin: 'file://') and its address without query or hash. */
function pageOf(url: string): { origin: string; path: string } {
  try {
    const u = new URL(url);
    const origin = u.protocol === 'file:' ? 'file://' : u.origin;
    return { origin, path: `${origin}${u.pathname}` };
  } catch {
    return { origin: 'an unparsable URL', path: 'an unparsable URL' };
  }
}

/**
 * The one wrapper every ipcMain handler goes through: a refused request answers `bad-request` without
 * reaching the handler and is logged once with its channel and reason; a check that throws is a refusal.
 */
function fromTrustedSender<A>(
  channel: string,
  check: SenderCheck,
  log: (line: string) => void,
  handle: (args: A) => Promise<Result<unknown>>,
): (event: IpcMainInvokeEvent, args: A) => Promise<Result<unknown>> {
  return (event, args) => {
    let refusal: string | null;
    try {
      refusal = check(event);
    } catch (err) {
      refusal = `the sender could not be checked: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (refusal === null) return handle(args);
    log(`rlwatch: refused ${channel}: ${refusal}`);
    return Promise.resolve(fail('bad-request', 'request from an untrusted frame refused'));
  };
}

export function registerContract(
  ipcMain: IpcMain,
  handlers: Handlers,
  check: SenderCheck,
  log: (line: string) => void = console.warn,
): () => void {
  for (const channel of REQUEST_CHANNELS) {
    ipcMain.handle(
      ipcName(channel),
      fromTrustedSender(channel, check, log, (args: unknown) => dispatch(handlers, channel, args)),
    );
  }
  return () => REQUEST_CHANNELS.forEach((c) => ipcMain.removeHandler(ipcName(c)));
}

/** The same renderer feed as serve (big deltas become 'bulk' resets), sent to the window's contents. */
export function forwardPushEvents(bus: AppBus, target: () => WebContents | null): () => void {
  return forwardToRenderer(bus, ({ event, payload }) => {
    const contents = target();
    if (contents && !contents.isDestroyed()) contents.send(ipcName(event), payload);
  });
}
