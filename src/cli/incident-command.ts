// `rlwatch export PATH --incident ID|list --out FOLDER [--svg] [--json]`: an alert's snapshot without a window.

import { ExportUsageError } from '../core/export/export-run';
import type { FigureFormat } from '../core/export/figure-render';
import {
  AmbiguousAliasError,
  replayAlerts,
  snapshotHeadless,
  UnknownAlertError,
} from '../core/watch/replay-incident';
import { incidentAliases } from '../shared/incident-alias';
import { terminalSafe } from './terminal-text';
import { readableFolder, UsageError } from './usage';
import { savedSettings } from './watch-command';

/** `--incident list`: the folder's alerts, one line each (JSON lines with --json), to find an id. */
async function listIncidents(dir: string, json: boolean): Promise<number> {
  const replay = await replayAlerts(dir, savedSettings());
  try {
    const list = replay.list();
    const aliases = incidentAliases(list.map((a) => a.id));
    for (const a of list) {
      const state = a.active ? 'active' : 'cleared';
      process.stdout.write(
        json
          ? JSON.stringify({
              id: a.id,
              alias: aliases.get(a.id),
              run: a.run,
              rule: a.rule,
              tag: a.tag,
              step: a.step,
              severity: a.severity,
              state,
            }) + '\n'
          : `${aliases.get(a.id)!}  ${terminalSafe(a.id)}  ${a.severity} ${state} at step ${a.step}: ${terminalSafe(a.message)}\n`,
      );
    }
  } finally {
    await replay.close();
  }
  return 0;
}

/** The incident branch of `rlwatch export`: 0 when every file was written, 1 when some failed, 2 on bad usage. */
export async function runIncidentExport(
  path: string,
  id: string,
  o: { out: string | undefined; svg: boolean; json: boolean },
): Promise<number> {
  const dir = await readableFolder(path);
  if (id === 'list') return listIncidents(dir, o.json);
  if (o.out === undefined || o.out === '') throw new UsageError('export --incident needs --out FOLDER');
  const formats: FigureFormat[] = o.svg ? ['png', 'svg'] : ['png'];
  let snap;
  try {
    snap = await snapshotHeadless(dir, id, { out: o.out, settings: savedSettings(), formats });
  } catch (err) {
    if (
      err instanceof UnknownAlertError ||
      err instanceof AmbiguousAliasError ||
      err instanceof ExportUsageError
    )
      throw new UsageError(terminalSafe(err.message));
    throw err;
  }
  if (o.json) process.stdout.write(JSON.stringify(snap) + '\n');
  else
    process.stdout.write(
      `rlwatch: incident snapshot of ${snap.id === id ? '' : `${terminalSafe(id)} = `}${terminalSafe(snap.id)} written to ${terminalSafe(snap.folder)}: ${snap.written.length} file(s)` +
        (snap.failed.length ? `, ${snap.failed.length} failed` : '') +
        `; report ${terminalSafe(snap.report)}\n`,
    );
  for (const f of snap.failed) process.stderr.write(`rlwatch: ${terminalSafe(f.message)}\n`);
  return snap.failed.length > 0 ? 1 : 0;
}
