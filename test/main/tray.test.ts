// TrayService under a fake factory: it redraws only when what the tray shows changed, and clicks reach main.

import type { Menu, MenuItemConstructorOptions, NativeImage, Tray } from 'electron';
import { describe, expect, test, vi } from 'vitest';
import { TrayService, type Health } from '../../src/main/tray';
import type { TrayModel } from '../../src/core/app/tray-model';

/** A fake Electron factory that counts every redraw call (Signal-Desktop's tray test pattern). */
function fakeElectron() {
  const counts = { created: 0, images: 0, tooltips: 0, menus: 0, destroyed: 0 };
  const shown = { icon: '' as Health | '', tooltip: '', menu: [] as MenuItemConstructorOptions[] };
  const image = (health: Health) => ({ health }) as unknown as NativeImage;
  const healthOf = (img: NativeImage) => (img as unknown as { health: Health }).health;
  const tray = {
    setImage: (img: NativeImage) => {
      counts.images++;
      shown.icon = healthOf(img);
    },
    setToolTip: (text: string) => {
      counts.tooltips++;
      shown.tooltip = text;
    },
    setContextMenu: (menu: Menu) => {
      counts.menus++;
      shown.menu = menu as unknown as MenuItemConstructorOptions[];
    },
    destroy: () => void counts.destroyed++,
  } as unknown as Tray;
  const actions = { onShow: vi.fn(), onOpenFolder: vi.fn(), onFocus: vi.fn(), onQuit: vi.fn() };
  const service = new TrayService({
    createTray: (icon) => {
      counts.created++;
      shown.icon = healthOf(icon);
      return tray;
    },
    buildMenu: (template) => template as unknown as Menu,
    icon: image,
    ...actions,
  });
  const labels = () => shown.menu.map((i) => i.label ?? i.type);
  const click = (label: string) =>
    (shown.menu.find((i) => i.label === label)?.click as (() => void) | undefined)?.();
  return { service, counts, shown, actions, labels, click };
}

/** A fresh model object each call (core builds a new one on every bus event). */
function model(opts: { summary?: string; step?: number; health?: Health; alerts?: number } = {}): TrayModel {
  const run = 'run1';
  const alerts = Array.from({ length: opts.alerts ?? 0 }, (_, i) => ({
    id: `a${i}`,
    label: `⚠ kl-above-target (approx_kl) at step ${opts.step ?? 11}`,
    severity: 'warning' as const,
    focus: { run, tag: 'approx_kl', step: opts.step ?? 11 },
  }));
  return {
    health: opts.health ?? (alerts.length ? 'warning' : 'ok'),
    tooltip: alerts.length
      ? `rlwatch — ${alerts.length} active alert (warning)`
      : 'rlwatch — 1 run, all healthy',
    runs: [
      {
        name: run,
        summary: opts.summary ?? 'step 11 · KL 0.03',
        worst: alerts.length ? 'warning' : null,
        alerts,
        focus: { run, tag: null, step: null },
      },
    ],
  };
}

describe('TrayService', () => {
  test('the first render creates the tray with the ok icon and an empty menu', () => {
    const t = fakeElectron();
    t.service.render();
    expect(t.counts).toMatchObject({ created: 1, menus: 1, tooltips: 1 });
    expect(t.shown.icon).toBe('ok');
    expect(t.shown.tooltip).toBe('rlwatch — no runs open');
    expect(t.labels()).toEqual([
      'Show rlwatch',
      'Open Folder…',
      'separator',
      'No runs open',
      'separator',
      'Quit',
    ]);
  });

  test('rendering again, or updating with an equal model (a new object), redraws nothing', () => {
    const t = fakeElectron();
    t.service.update(model());
    const after = { ...t.counts };
    t.service.render();
    t.service.update(model());
    t.service.update(model());
    expect(t.counts).toEqual(after);
  });

  test('fields the tray does not show (the alert id, the run worst severity) redraw nothing', () => {
    const t = fakeElectron();
    t.service.update(model({ alerts: 1 }));
    const after = { ...t.counts };
    const same = model({ alerts: 1 });
    same.runs[0]!.alerts[0]!.id = 'another-id';
    same.runs[0]!.worst = 'critical';
    t.service.update(same);
    expect(t.counts).toEqual(after);
  });

  test('each shown field redraws once: a summary, the icon, a new alert, an alert click target', () => {
    const t = fakeElectron();
    t.service.update(model());
    expect(t.counts.menus).toBe(1);

    t.service.update(model({ summary: 'step 12 · KL 0.04' }));
    expect(t.counts.menus).toBe(2);
    expect(t.labels()).toContain('run1  step 12 · KL 0.04');

    t.service.update(model({ summary: 'step 12 · KL 0.04', alerts: 1 }));
    expect(t.counts).toMatchObject({ created: 1, images: 2, menus: 3 });
    expect(t.shown.icon).toBe('warning');
    expect(t.shown.tooltip).toBe('rlwatch — 1 active alert (warning)');

    const moved = model({ summary: 'step 12 · KL 0.04', alerts: 1 });
    moved.runs[0]!.alerts[0]!.focus = { run: 'run1', tag: 'approx_kl', step: 99 };
    t.service.update(moved);
    expect(t.counts.menus).toBe(4);
    t.service.update(model({ summary: 'step 12 · KL 0.04', alerts: 1, health: 'critical' }));
    expect(t.counts.menus).toBe(5);
    expect(t.shown.icon).toBe('critical');
  });

  test('menu items call main: show, open folder, focus a run or an alert at its step, quit', () => {
    const t = fakeElectron();
    t.service.update(model({ alerts: 1, step: 7 }));
    t.click('Show rlwatch');
    t.click('Open Folder…');
    t.click('run1  step 11 · KL 0.03');
    t.click('    ⚠ kl-above-target (approx_kl) at step 7');
    t.click('Quit');
    expect(t.actions.onShow).toHaveBeenCalledTimes(1);
    expect(t.actions.onOpenFolder).toHaveBeenCalledTimes(1);
    expect(t.actions.onFocus.mock.calls).toEqual([
      [{ run: 'run1', tag: null, step: null }],
      [{ run: 'run1', tag: 'approx_kl', step: 7 }],
    ]);
    expect(t.actions.onQuit).toHaveBeenCalledTimes(1);
  });

  test('after destroy the next render builds a new tray', () => {
    const t = fakeElectron();
    t.service.update(model());
    t.service.destroy();
    expect(t.counts.destroyed).toBe(1);
    t.service.update(model());
    expect(t.counts.created).toBe(2);
  });
});
