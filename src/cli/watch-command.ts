// `rlwatch watch PATH [--json|--verbose] [--exit-on critical]`: prints updates and alerts as they happen.

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
import { jobRulesFromEnv } from './job-rules-env';
import type { SystemSnapshot } from '../shared/system-types';
import { createWorkspace } from '../core/workspace/create';
import { colourWanted, CompactWatch, formatLine } from './watch-text';
import { parseFlags, readableFolder, repeatedFlag, untilSignal, UsageError } from './usage';
import type { Settings } from '../shared/domain';

/** Exit status when `--exit-on critical` sees a critical alert (command-line contract). */
export const EXIT_CRITICAL = 3;

/** How long the compact form waits for the rest of a read's tags before printing a run's line (ms). */
const COMPACT_FLUSH_MS = 250;

export async function runWatch(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    json: { type: 'boolean' },
    verbose: { type: 'boolean' },
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
  if (json && values.verbose === true) throw new UsageError('watch takes --json or --verbose, not both');
  // The default for people: a line per run per update (CompactWatch), flushed once the read that brought it settles.
  const compact =
    json || values.verbose === true
      ? null
      : new CompactWatch({ colour: colourWanted(process.stdout.isTTY, process.env) });
  let flushTimer: NodeJS.Timeout | null = null;
  const flush = (): void => {
    flushTimer = null;
    const text = compact?.flush(Date.now()) ?? '';
    if (text !== '') process.stdout.write(text);
  };

  const workspace = createWorkspace({ usePolling: values.poll === true });
  const sampler = values['no-system'] === true ? null : createSystemSampler({});
  let resolveCritical!: () => void;
  const critical = new Promise<void>((res) => (resolveCritical = res));

  const emit = (line: WatchLine): void => {
    // The compact form keeps a run's points for its next line: nothing to write (each empty write was a syscall,
    // 2,500 a second with 50 runs × 50 tags, a tenth of watch's time).
    const text = json ? JSON.stringify(line) + '\n' : compact ? compact.push(line) : formatLine(line);
    if (text !== '') process.stdout.write(text);
    if (compact?.due && flushTimer === null) flushTimer = setTimeout(flush, COMPACT_FLUSH_MS);
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
            runs: () => workspace.runNames(),
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
          ...jobRulesFromEnv(process.env.RLWATCH_JOB_SILENT_AFTER_MS),
        });
  if (sampler) {
    sampler.setRuns(workspace.runDirs());
    workspace.on('runs.changed', () => sampler.setRuns(workspace.runDirs()));
  }
  sampler?.start();

  const outcome = await Promise.race([untilSignal().then(() => 0), critical.then(() => EXIT_CRITICAL)]);
  following?.close();
  session?.close();
  if (flushTimer !== null) clearTimeout(flushTimer);
  flush();
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
