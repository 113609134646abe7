// `rlwatch export PATH --out FOLDER`: a run's full-resolution data as CSV (long and wide) and JSON history.

import { exportData, ExportUsageError, type ExportFileEvent } from '../core/export/export-run';
import { runIncidentExport } from './incident-command';
import { terminalSafe } from './terminal-text';
import { parseFlags, UsageError } from './usage';

/** Exit status of an export that wrote some files but not all. */
export const EXIT_PARTIAL = 1;

function regexFlag(name: string, raw: string | boolean | undefined): RegExp | undefined {
  if (typeof raw !== 'string') return undefined;
  try {
    return new RegExp(raw);
  } catch (err) {
    throw new UsageError(
      `--${name} is not a valid regular expression: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

export async function runExport(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    out: { type: 'string' },
    csv: { type: 'boolean' },
    json: { type: 'boolean' },
    png: { type: 'boolean' },
    svg: { type: 'boolean' },
    runs: { type: 'string' },
    tags: { type: 'string' },
    incident: { type: 'string' },
  });
  if (positionals.length !== 1)
    throw new UsageError('export needs exactly one path: rlwatch export PATH --out FOLDER');
  if (typeof values.incident === 'string')
    return runIncidentExport(positionals[0]!, values.incident, {
      out: typeof values.out === 'string' ? values.out : undefined,
      svg: values.svg === true,
      json: values.json === true,
    });
  if (typeof values.out !== 'string' || values.out === '') throw new UsageError('export needs --out FOLDER');
  if (values.png === true || values.svg === true) {
    throw new UsageError('PNG and SVG figures are not in this version of export yet; --csv and --json are');
  }
  // Neither format named: both.
  const csv = values.csv === true || values.json !== true;
  const json = values.json === true || values.csv !== true;
  const tty = process.stderr.isTTY === true;
  const progress = (e: ExportFileEvent): void => {
    const what = e.kind === 'written' ? `wrote ${terminalSafe(e.path)}` : `FAILED ${terminalSafe(e.message)}`;
    if (tty) {
      const width = 24;
      const filled = Math.round((e.done / Math.max(1, e.total)) * width);
      process.stderr.write(
        `\r\x1b[K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${e.done}/${e.total} ${what}`,
      );
      if (e.kind === 'failed') process.stderr.write('\n');
    } else {
      process.stderr.write(`rlwatch: ${e.done}/${e.total} ${what}\n`);
    }
  };
  let report;
  try {
    report = await exportData(positionals[0]!, {
      out: values.out,
      csv,
      json,
      runs: regexFlag('runs', values.runs),
      tags: regexFlag('tags', values.tags),
      onFile: progress,
    });
  } catch (err) {
    if (err instanceof ExportUsageError) throw new UsageError(err.message);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`${positionals[0]} does not exist`);
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  if (tty) process.stderr.write('\r\x1b[K');
  if (values.json === true) process.stdout.write(JSON.stringify(report) + '\n');
  else {
    process.stdout.write(
      `rlwatch: exported ${report.runs.length} run(s) to ${terminalSafe(report.out)}: ${report.written.length} file(s) written` +
        (report.failed.length ? `, ${report.failed.length} failed` : '') +
        '\n',
    );
  }
  for (const f of report.failed) process.stderr.write(`rlwatch: ${terminalSafe(f.message)}\n`);
  return report.failed.length > 0 ? EXIT_PARTIAL : 0;
}
