// The tray as a small service: injected factory, private state, idempotent render (after Signal-Desktop's).
// What it shows is computed in core (buildTrayModel); this only turns the model into Electron's menu.

import type { Menu, MenuItemConstructorOptions, NativeImage, Tray } from 'electron';
import type { AppFocus } from '../shared/domain';
import type { TrayHealth, TrayModel } from '../core/app/tray-model';

export type Health = TrayHealth;

export interface TrayDeps {
  createTray(icon: NativeImage): Tray;
  buildMenu(template: MenuItemConstructorOptions[]): Menu;
  icon(health: Health): NativeImage;
  onShow(): void;
  onOpenFolder(): void;
  /** A run or alert item was clicked. */
  onFocus(focus: AppFocus): void;
  onQuit(): void;
}

const EMPTY: TrayModel = { health: 'ok', tooltip: 'rlwatch — no runs open', runs: [] };

export class TrayService {
  private tray: Tray | null = null;
  private model: TrayModel = EMPTY;
  /** The model the tray shows now; null before the first render and after destroy(). */
  private rendered: TrayModel | null = null;

  constructor(private readonly deps: TrayDeps) {}

  update(model: TrayModel): void {
    this.model = model;
    this.render();
  }

  /** Rebuilds the tray only when what it shows changed. */
  render(): void {
    if (this.tray && this.rendered && showsSame(this.rendered, this.model)) return;
    this.rendered = this.model;
    const icon = this.deps.icon(this.model.health);
    if (!this.tray) this.tray = this.deps.createTray(icon);
    else this.tray.setImage(icon);
    this.tray.setToolTip(this.model.tooltip);
    const runItems: MenuItemConstructorOptions[] = this.model.runs.length
      ? this.model.runs.flatMap((r) => [
          { label: `${r.name}  ${r.summary}`, click: () => this.deps.onFocus(r.focus) },
          ...r.alerts.map((a) => ({ label: `    ${a.label}`, click: () => this.deps.onFocus(a.focus) })),
        ])
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

/** Whether two models show the same tray: icon, tooltip, and every menu item's label and click target. */
function showsSame(a: TrayModel, b: TrayModel): boolean {
  return (
    a.health === b.health &&
    a.tooltip === b.tooltip &&
    sameItems(
      a.runs,
      b.runs,
      (x, y) =>
        x.name === y.name &&
        x.summary === y.summary &&
        sameFocus(x.focus, y.focus) &&
        sameItems(x.alerts, y.alerts, (p, q) => p.label === q.label && sameFocus(p.focus, q.focus)),
    )
  );
}

function sameItems<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): boolean {
  return a.length === b.length && a.every((x, i) => same(x, b[i]!));
}

const sameFocus = (a: AppFocus, b: AppFocus): boolean =>
  a.run === b.run && a.tag === b.tag && a.step === b.step;
