// Desktop notifications: one call per message, no-op where the OS has none; click brings the window up.

import { Notification } from 'electron';

export function notify(title: string, body: string, onClick?: () => void): boolean {
  if (!Notification.isSupported()) return false;
  const n = new Notification({ title, body, silent: false });
  if (onClick) n.on('click', onClick);
  n.show();
  return true;
}
