// The charts' browser side: chart.js registration and the page's theme, read from CSS and watched for changes.

import { Chart, LinearScale, LineController, LineElement, LogarithmicScale, PointElement } from 'chart.js';
import { themeFromProperties, type ChartTheme } from '../../../shared/charts/chart-theme';

let registered = false;

/** Registers what the charts use, once (tree-shaken chart.js: no Tooltip, Legend, Filler or time scale). */
export function registerCharts(): void {
  if (registered) return;
  registered = true;
  Chart.register(LineController, LineElement, PointElement, LinearScale, LogarithmicScale);
  exposeChartsForCheck();
  // Zoom is for later: fetched once the page is idle (the first screen drawn), or at first contact.
  const idle = (globalThis as { requestIdleCallback?: (cb: () => void, o: { timeout: number }) => void })
    .requestIdleCallback;
  if (idle) idle(() => void loadZoom(), { timeout: 3000 });
  else setTimeout(() => void loadZoom(), 1000);
}

let zoomLoad: Promise<void> | null = null;
let zoomRegistered = false;

/**
 * chartjs-plugin-zoom (with Hammer.js, a third of chart.js's weight) is a chunk of its own: the first screen
 * draws without it. Registering it later changes no chart: each enables it on first contact (ChartInstance).
 */
export function loadZoom(): Promise<void> {
  return (zoomLoad ??= import('chartjs-plugin-zoom').then((m) => {
    Chart.register(m.default);
    zoomRegistered = true;
  }));
}

/** The zoom plugin is registered: a chart can enable it at once. */
export function zoomLoaded(): boolean {
  return zoomRegistered;
}

declare global {
  interface Window {
    /** Only on a page opened with `?check=1`: the live charts, for the render check (`npm run check:runs`). */
    __rlwatchCharts?: () => Chart[];
  }
}

/**
 * The render check's one hook: with `?check=1` in the page URL, `window.__rlwatchCharts()` lists the live
 * chart.js instances (read-only use: test/e2e/render-check reads their data, scales and ticks). Nothing otherwise.
 */
function exposeChartsForCheck(): void {
  if (new URLSearchParams(location.search).get('check') !== '1') return;
  Object.defineProperty(window, '__rlwatchCharts', {
    value: (): Chart[] => Object.values(Chart.instances),
    configurable: false,
    writable: false,
  });
}

let cachedTheme: ChartTheme | null = null;

/** The page's theme, read once from <html>'s CSS custom properties and shared by every chart until it changes. */
export function currentTheme(): ChartTheme {
  if (cachedTheme) return cachedTheme;
  const style = getComputedStyle(document.documentElement);
  cachedTheme = themeFromProperties(
    (name) => style.getPropertyValue(name),
    () => matchMedia?.('(prefers-color-scheme: dark)').matches ?? false,
  );
  return cachedTheme;
}

const themeListeners = new Set<() => void>();
let themeWatching = false;

/**
 * Calls `listener` when the colours may have changed: the OS scheme flipped, or the app set a theme on
 * <html> (data-theme / class / style). One shared observer for all charts; returns the unsubscribe.
 */
export function onThemeChange(listener: () => void): () => void {
  themeListeners.add(listener);
  if (!themeWatching) {
    themeWatching = true;
    const notify = (): void => {
      cachedTheme = null;
      themeListeners.forEach((l) => l());
    };
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', notify);
    new MutationObserver(notify).observe(document.documentElement, {
      attributes: true,
      attributeFilter: ['data-theme', 'class', 'style'],
    });
  }
  return () => themeListeners.delete(listener);
}
