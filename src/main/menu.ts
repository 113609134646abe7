// The application menu: File › Open Folder…, the standard edit/view/window roles, Help.

import type { MenuItemConstructorOptions } from 'electron';

export function appMenuTemplate(actions: {
  openFolder(): void;
  isMac: boolean;
}): MenuItemConstructorOptions[] {
  return [
    ...(actions.isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        { label: 'Open Folder…', accelerator: 'CmdOrCtrl+O', click: () => actions.openFolder() },
        { type: 'separator' },
        actions.isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ];
}
