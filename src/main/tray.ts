// The tray as a small service: injected factory, private state, idempotent render (after Signal-Desktop's).

import type { Menu, MenuItemConstructorOptions, NativeImage, Tray } from 'electron';

export type Health = 'ok' | 'warning' | 'critical';

export interface TrayState {
  health: Health;
  runs: { name: string; summary: string }[];
}

export interface TrayDeps {
  createTray(icon: NativeImage): Tray;
  buildMenu(template: MenuItemConstructorOptions[]): Menu;
  icon(health: Health): NativeImage;
  onShow(): void;
  onOpenFolder(): void;
  onQuit(): void;
}

export class TrayService {
  private tray: Tray | null = null;
  private state: TrayState = { health: 'ok', runs: [] };
  private rendered: string | null = null;

  constructor(private readonly deps: TrayDeps) {}

  update(next: Partial<TrayState>): void {
    this.state = { ...this.state, ...next };
    this.render();
  }

  /** Rebuilds the tray only when what it shows changed. */
  render(): void {
    const key = JSON.stringify(this.state);
    if (key === this.rendered && this.tray) return;
    this.rendered = key;
    const icon = this.deps.icon(this.state.health);
    if (!this.tray) this.tray = this.deps.createTray(icon);
    else this.tray.setImage(icon);
    this.tray.setToolTip(`rlwatch — ${this.state.health === 'ok' ? 'all runs healthy' : this.state.health}`);
    const runItems: MenuItemConstructorOptions[] = this.state.runs.length
      ? this.state.runs.map((r) => ({ label: `${r.name}  ${r.summary}`, enabled: false }))
      : [{ label: 'No runs open', enabled: false }];
    this.tray.setContextMenu(
      this.deps.buildMenu([
        { label: 'Show rlwatch', click: () => this.deps.onShow() },
        { label: 'Open Folder…', click: () => this.deps.onOpenFolder() },
        { type: 'separator' },
        ...runItems,
        { type: 'separator' },
        { label: 'Quit', click: () => this.deps.onQuit() },
      ]),
    );
  }

  destroy(): void {
    this.tray?.destroy();
    this.tray = null;
    this.rendered = null;
  }
}
