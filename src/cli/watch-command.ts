// `rlwatch watch PATH [--json] [--exit-on critical]`: prints updates and alerts as they happen.

import { existsSync } from 'node:fs';
import { storePathFromEnv } from '../core/app/app-store';
import { readSettingReadOnly } from '../core/store';
import { parseSettings, SETTINGS_KEY } from '../core/app/settings';
import { createSystemSampler } from '../core/system';
import { createWatchAlerts } from '../core/watch/watch-alerts';
import { exitsOnCritical, type WatchLine } from '../core/watch/watch-lines';
import { WatchSession } from '../core/watch/watch-session';
import { WatchRemotes } from '../core/watch/watch-remotes';
import { remoteUrls } from './remote-flags';
import type { SystemSnapshot } from '../shared/system-types';
import { JOB_NODE_STATE_LABELS } from '../shared/job-types';
import { createWorkspace } from '../core/workspace/create';
import { terminalSafe } from './terminal-text';
import { parseFlags, readableFolder, repeatedFlag, untilSignal, UsageError } from './usage';
import { formatNumber } from '../shared/format';
import type { Settings } from '../shared/domain';

/** Exit status when `--exit-on critical` sees a critical alert (command-line contract). */
export const EXIT_CRITICAL = 3;

export async function runWatch(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    json: { type: 'boolean' },
    'exit-on': { type: 'string' },
    poll: { type: 'boolean' },
    'no-system': { type: 'boolean' },
    remote: { type: 'string', multiple: true },
  });
  const remotes = remoteUrls(repeatedFlag(values, 'remote'), process.env.RLWATCH_REMOTES);
  if (positionals.length > 1 || (positionals.length === 0 && remotes.length === 0))
    throw new UsageError(
      'watch needs one folder, or --remote URL: rlwatch watch [PATH] [--remote URL]... [--json]',
    );
  const exitOn = values['exit-on'];
  if (exitOn !== undefined && exitOn !== 'critical')
    throw new UsageError(`--exit-on takes 'critical', got '${String(exitOn)}'`);
  const dir = positionals[0] === undefined ? null : await readableFolder(positionals[0]);
  const json = values.json === true;

  const workspace = createWorkspace({ usePolling: values.poll === true });
  const sampler = values['no-system'] === true ? null : createSystemSampler({});
  let resolveCritical!: () => void;
  const critical = new Promise<void>((res) => (resolveCritical = res));

  const emit = (line: WatchLine): void => {
    process.stdout.write(json ? JSON.stringify(line) + '\n' : formatLine(line));
    if (exitOn === 'critical' && exitsOnCritical(line)) resolveCritical();
  };
  let latest: SystemSnapshot | null = null;
  sampler?.subscribe((s) => (latest = s));
  const session =
    dir === null
      ? null
      : new WatchSession({
          workspace,
          emit,
          alerts: createWatchAlerts({
            root: dir,
            configOf: (run) => workspace.configOf(run),
            writtenAt: (run) => workspace.writtenAt(run),
            runs: () => workspace.listRuns().map((r) => r.run),
            settings: savedSettings(),
          }),
          ...(sampler ? { system: sampler } : {}),
        });
  if (dir !== null) await workspace.open(dir);
  // The endpoints' runs, alerts and links, and the jobs across them and this folder.
  const following =
    remotes.length === 0
      ? null
      : new WatchRemotes({
          urls: remotes,
          emit,
          localRuns: () => (dir === null ? [] : workspace.listRuns()),
          localSample: () => latest,
        });
  if (sampler) {
    sampler.setRuns(workspace.runDirs());
    workspace.on('runs.changed', () => sampler.setRuns(workspace.runDirs()));
  }
  sampler?.start();

  const outcome = await Promise.race([untilSignal().then(() => 0), critical.then(() => EXIT_CRITICAL)]);
  following?.close();
  session?.close();
  sampler?.stop();
  await workspace.close();
  return outcome;
}

/** The settings the desktop app saved (thresholds, stalled-after minutes), read once; watch never writes them. */
export function savedSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const path = storePathFromEnv(env);
  // No database yet: the app never saved settings, and watch does not create one.
  if (path === null || !existsSync(path)) return parseSettings(undefined);
  // Read-only: watch never migrates, re-journals or moves aside the app's database.
  return parseSettings(readSettingReadOnly(path, SETTINGS_KEY));
}

const clock = (t: number): string => new Date(t).toISOString().slice(11, 19);
// null is how JSON carries NaN in a scalar line.
const num = (v: number | null): string => (v === null ? 'NaN' : formatNumber(v, 6));

/** One readable line per event for people (the JSON form is for programs). */
export function formatLine(line: WatchLine): string {
  switch (line.type) {
    case 'run':
      return `${clock(line.t)}  run ${terminalSafe(line.run)} ${line.state}\n`;
    case 'scalars': {
      const last = line.points[line.points.length - 1];
      return last
        ? `${clock(line.t)}  ${terminalSafe(line.run)}  ${terminalSafe(line.tag)}  step ${last[0]} = ${num(last[2])}${line.points.length > 1 ? `  (+${line.points.length} points)` : ''}\n`
        : '';
    }
    case 'progress':
      return `${clock(line.t)}  ${terminalSafe(line.run)}  progress ${line.fraction === null ? '?' : `${(line.fraction * 100).toFixed(1)}%`}${line.etaSeconds === null ? '' : `, ETA ${Math.round(line.etaSeconds)} s`}\n`;
    case 'alert':
      return `${clock(line.t)}  ${line.severity.toUpperCase()} ${line.state}: ${terminalSafe(line.run)} ${line.rule} — ${terminalSafe(line.message)}\n`;
    case 'notice':
      return `${clock(line.t)}  ${line.level}: ${terminalSafe(line.message)}\n`;
    case 'error':
      return `${clock(line.t)}  read error in ${terminalSafe(line.run)}/${terminalSafe(line.file)} at byte ${line.offset} (${line.kind}): ${terminalSafe(line.message)}; the points before it are kept\n`;
    case 'reset':
      return `${clock(line.t)}  ${terminalSafe(line.run)}  ${terminalSafe(line.tag)}  points reset (${line.reason})\n`;
    case 'endpoint':
      return `${clock(line.t)}  endpoint ${terminalSafe(line.endpoint)} ${line.state}${line.error ? `: ${terminalSafe(line.error)}` : ''}\n`;
    case 'job': {
      const nodes = line.nodes
        .map(
          (n) =>
            `${terminalSafe(n.node)} ${n.state === 'moving' ? '' : `${JOB_NODE_STATE_LABELS[n.state].toUpperCase()} `}@${n.step ?? '?'}` +
            // "agent unreachable" already says its endpoint does not answer.
            (n.connected || n.state === 'unreachable' ? '' : ' (not connected)'),
        )
        .join(', ');
      const count = `${line.nodes.length} node${line.nodes.length === 1 ? '' : 's'}`;
      return `${clock(line.t)}  job ${terminalSafe(line.job)}  ${count}: ${nodes}\n`;
    }
    case 'system': {
      const gpus = line.gpus.map((g) => `GPU${g.index} ${g.utilizationPct ?? '?'}%`).join(' ');
      return `${clock(line.t)}  system cpu ${line.cpuPct === null ? '?' : line.cpuPct.toFixed(0)}% mem ${line.memPct === null ? '?' : line.memPct.toFixed(0)}%${gpus ? ' ' + gpus : ''}\n`;
    }
  }
}
