// Browser notifications (serve mode): permission from a click, one Notification per app.notification push, a click shows the run.

import type { AppFocus, AppNotification } from '../../../shared/domain';
import type { Backend } from '../backend/backend';

/** The Notification API's permission, or 'unsupported' where the browser has none. */
export type NotifyPermission = NotificationPermission | 'unsupported';

function currentPermission(): NotifyPermission {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

/**
 * Shows what the core's notification limiter decided (the desktop tray's notifications, pushed to every
 * client as `app.notification`), so the browser follows the same rule and never invents one. The Electron
 * window has native notifications through main: there this does nothing.
 */
export class BrowserNotifier {
  permission = $state<NotifyPermission>(currentPermission());

  constructor(private readonly onFocus: (focus: AppFocus) => void) {}

  /** Subscribes to the backend's notifications when it is the serve WebSocket; returns the unsubscribe. */
  start(backend: Backend): () => void {
    if (backend.kind !== 'websocket') return () => {};
    return backend.on('app.notification', (n) => this.show(n));
  }

  /** Asks the browser for permission; must run from a user gesture (a click). */
  async request(): Promise<void> {
    if (typeof Notification === 'undefined') return;
    try {
      this.permission = await Notification.requestPermission();
    } catch {
      this.permission = currentPermission();
    }
  }

  private show(n: AppNotification): void {
    // Read again: the user may have changed it in the browser's site settings since.
    this.permission = currentPermission();
    if (this.permission !== 'granted') return;
    const note = new Notification(n.title, { body: n.body, tag: `rlwatch:${n.run}` });
    note.addEventListener('click', () => {
      window.focus();
      this.onFocus(n.focus);
      note.close();
    });
  }
}
