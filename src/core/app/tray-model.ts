// The tray as data (pure): icon health = worst active alert over open runs; per run its key numbers and alerts.

import {
  worseSeverity,
  type AlertInfo,
  type AppFocus,
  type RunInfo,
  type Severity,
} from '../../shared/domain';
import { KEY_LABELS, KEY_ROLES, type KeyNumbers } from './key-numbers';
import { formatNumber } from '../../shared/format';

export type TrayHealth = 'ok' | 'warning' | 'critical';

export interface TrayAlertItem {
  id: string;
  label: string;
  severity: Severity;
  focus: AppFocus;
}

export interface TrayRunItem {
  name: string;
  /** "step 412 · reward 0.531 · KL 0.0312" */
  summary: string;
  worst: Severity | null;
  alerts: TrayAlertItem[];
  focus: AppFocus;
}

export interface TrayModel {
  health: TrayHealth;
  tooltip: string;
  runs: TrayRunItem[];
}

export function buildTrayModel(
  runs: readonly RunInfo[],
  active: readonly AlertInfo[],
  keys: (run: string) => KeyNumbers,
): TrayModel {
  let health: Severity | null = null;
  // Alerts of something that is not a run folder (live system samples) get an item of their own.
  const names = new Set(runs.map((r) => r.run));
  const others = [...new Set(active.filter((a) => a.active && !names.has(a.run)).map((a) => a.run))].sort();
  const rows = [
    ...runs.map((r) => ({ run: r.run, info: r as RunInfo | null })),
    ...others.map((run) => ({ run, info: null })),
  ];
  const items: TrayRunItem[] = rows.map(({ run, info }) => {
    const r = { run };
    const k = keys(r.run);
    const parts: string[] = [];
    if (k.step !== null) parts.push(`step ${formatNumber(k.step)}`);
    let shown = 0;
    for (const role of KEY_ROLES) {
      const v = k.values[role];
      if (!v || shown >= 3) continue;
      parts.push(`${KEY_LABELS[role] ?? role} ${formatNumber(v.value)}`);
      shown++;
    }
    if (parts.length === 0)
      parts.push(info ? `${info.tags.length} tags · ${info.points} points` : 'live system samples');
    // A stop in words first (the icon's colour is the alerts'): "exited · step 412 · …".
    const stop = info?.stop?.state;
    if (stop === 'exited' || stop === 'stalled') parts.unshift(stop);
    const alerts = active
      .filter((a) => a.active && a.run === r.run)
      .sort((a, b) =>
        a.severity === b.severity ? a.raisedAt - b.raisedAt : a.severity === 'critical' ? -1 : 1,
      )
      .map((a) => ({
        id: a.id,
        severity: a.severity,
        label: `${a.severity === 'critical' ? '⛔' : '⚠'} ${a.rule}${a.tag ? ` (${a.tag})` : ''} at step ${formatNumber(a.step)}`,
        focus: { run: a.run, tag: a.tag, step: a.step },
      }));
    const worst = alerts.reduce<Severity | null>((w, a) => worseSeverity(w, a.severity), null);
    health = worseSeverity(health, worst);
    return {
      name: r.run,
      summary: parts.join(' · '),
      worst,
      alerts,
      focus: { run: r.run, tag: null, step: null },
    };
  });
  const nAlerts = items.reduce((n, r) => n + r.alerts.length, 0);
  const h: TrayHealth = health ?? 'ok';
  const tooltip =
    h === 'ok'
      ? items.length
        ? `rlwatch — ${items.length} run${items.length === 1 ? '' : 's'}, all healthy`
        : 'rlwatch — no runs open'
      : `rlwatch — ${nAlerts} active alert${nAlerts === 1 ? '' : 's'} (${h})`;
  return { health: h, tooltip, runs: items };
}
