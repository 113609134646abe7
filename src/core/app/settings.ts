// User settings: defaults, validation of what the store holds, patches, and the thresholds they override.

import { DEFAULT_SETTINGS, type Settings } from '../../shared/domain';

export { DEFAULT_SETTINGS };
import type { JsonValue, RunView } from '../store';

export const SETTINGS_KEY = 'settings';

const oneOf = <T extends string>(v: unknown, allowed: readonly T[], d: T): T =>
  typeof v === 'string' && (allowed as readonly string[]).includes(v) ? (v as T) : d;
const num = (v: unknown, min: number, max: number, d: number): number =>
  typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : d;
const bool = (v: unknown, d: boolean): boolean => (typeof v === 'boolean' ? v : d);

/** Settings from whatever the store held: unknown keys dropped, bad values back to their default. */
export function parseSettings(stored: JsonValue | undefined): Settings {
  const o = stored !== null && typeof stored === 'object' && !Array.isArray(stored) ? stored : {};
  const d = DEFAULT_SETTINGS;
  const thresholds: Record<string, number> = {};
  const th = o.thresholds;
  if (th !== null && typeof th === 'object' && !Array.isArray(th)) {
    for (const [k, v] of Object.entries(th))
      if (typeof v === 'number' && Number.isFinite(v)) thresholds[k] = v;
  }
  return {
    theme: oneOf(o.theme, ['system', 'light', 'dark'] as const, d.theme),
    smoothing: num(o.smoothing, 0, 0.999, d.smoothing),
    xAxis: oneOf(o.xAxis, ['step', 'relative', 'wall'] as const, d.xAxis),
    logY: bool(o.logY, d.logY),
    ignoreOutliers: bool(o.ignoreOutliers, d.ignoreOutliers),
    earlierSessions: bool(o.earlierSessions, d.earlierSessions),
    notifications: bool(o.notifications, d.notifications),
    usePolling: bool(o.usePolling, d.usePolling),
    stalledAfterMinutes:
      typeof o.stalledAfterMinutes === 'number'
        ? num(o.stalledAfterMinutes, 1, 24 * 60, 0) || null
        : d.stalledAfterMinutes,
    thresholds,
    exportFolder:
      typeof o.exportFolder === 'string' && o.exportFolder.length > 0 && o.exportFolder.length <= 4096
        ? o.exportFolder
        : d.exportFolder,
  };
}

/** A patch (already validated by the contract's schema) applied; `thresholds` replaces the whole map. */
export function applySettingsPatch(current: Settings, patch: Partial<Settings>): Settings {
  const next: Settings = { ...current };
  for (const [k, v] of Object.entries(patch) as [keyof Settings, unknown][]) {
    if (v !== undefined) (next as unknown as Record<string, unknown>)[k] = v;
  }
  next.thresholds = { ...(patch.thresholds ?? current.thresholds) };
  return next;
}

/** How a folder's charts are viewed (x-axis mode, ignore outliers): kept per folder, never carried to the next. */
export type FolderView = Pick<Settings, 'xAxis' | 'ignoreOutliers'>;

/** A folder's view from its stored view record; the defaults for a folder never viewed. */
export function parseFolderView(view: RunView | null): FolderView {
  const d = DEFAULT_SETTINGS;
  return {
    xAxis: oneOf(view?.xAxis, ['step', 'relative', 'wall'] as const, d.xAxis),
    ignoreOutliers: bool(view?.ignoreOutliers, d.ignoreOutliers),
  };
}

/** A settings patch split into the open folder's view and the settings for every folder. */
export function splitFolderView(patch: Partial<Settings>): {
  folder: Partial<FolderView>;
  global: Partial<Settings>;
} {
  const { xAxis, ignoreOutliers, ...global } = patch;
  const folder: Partial<FolderView> = {};
  if (xAxis !== undefined) folder.xAxis = xAxis;
  if (ignoreOutliers !== undefined) folder.ignoreOutliers = ignoreOutliers;
  return { folder, global };
}
