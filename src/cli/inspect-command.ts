// `rlwatch inspect PATH [--json]`: what is in a folder — runs, sources, errors, per-tag summaries (or its runs table).

import { inspectPath, type InspectReport } from '../core/inspect';
import { terminalSafe, textTable } from './terminal-text';
import { stat } from 'node:fs/promises';
import { runsTableOutput, worstAlerts, type RunAlert } from './runs-table-output';
import { AGGREGATE_FLAGS, aggregateFlags, aggregateOf, aggregateOutput } from './aggregate-output';
import { parseFlags, UsageError } from './usage';
import { formatValue } from '../shared/format';
import { sessionText } from '../shared/session-text';

export async function runInspect(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    json: { type: 'boolean' },
    table: { type: 'boolean' },
    csv: { type: 'boolean' },
    columns: { type: 'string' },
    ...AGGREGATE_FLAGS,
  });
  if (positionals.length !== 1)
    throw new UsageError('inspect needs exactly one path: rlwatch inspect PATH [--table] [--json|--csv]');
  if (values.csv === true && values.table !== true) throw new UsageError('--csv goes with --table');
  if (values.csv === true && values.json === true)
    throw new UsageError('--table takes --json or --csv, not both');
  if (values.columns !== undefined && (values.table !== true || values.json === true || values.csv === true))
    throw new UsageError('--columns goes with --table (text): the JSON and CSV have every column');
  const aggregate = aggregateFlags(values);
  const tty = process.stderr.isTTY === true;
  let report: InspectReport;
  try {
    report = await inspectPath(positionals[0]!, (done, total) => {
      if (tty) process.stderr.write(`\rrlwatch: reading ${done + 1}/${total} files…`);
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'is not readable (permission denied)' : null;
    throw new UsageError(why ? `${positionals[0]} ${why}` : err instanceof Error ? err.message : String(err));
  }
  if (tty) process.stderr.write('\r\x1b[K');
  for (const e of report.walkErrors) {
    process.stderr.write(`rlwatch: warning: ${terminalSafe(e.path)}: ${terminalSafe(e.message)}\n`);
  }
  if (aggregate !== null) {
    const result = aggregateOf(report, aggregate);
    process.stdout.write(aggregateOutput(report.root, result, values.csv === true));
    if (aggregate.out !== null) {
      const { writeAggregateFiles } = await import('./aggregate-files');
      for (const f of await writeAggregateFiles(aggregate.out, report.root, result))
        process.stderr.write(`rlwatch: wrote ${terminalSafe(f)}\n`);
    }
  } else if (values.table === true) {
    process.stdout.write(
      runsTableOutput(report, values.json === true ? 'json' : values.csv === true ? 'csv' : 'text', {
        alerts: await folderAlerts(positionals[0]!),
        layout: {
          // On a terminal the text fits its width; piped, it is printed whole.
          width: process.stdout.isTTY === true ? (process.stdout.columns ?? null) : null,
          columns:
            typeof values.columns === 'string'
              ? values.columns.split(',').filter((c) => c.trim() !== '')
              : null,
        },
      }),
    );
  } else if (values.json === true) {
    // The contract's keys (PRODUCT.md): the table's points and write time stay out of it.
    const runs = report.runs.map(({ points: _points, writtenAt: _writtenAt, ...run }) => run);
    process.stdout.write(JSON.stringify({ root: report.root, runs }) + '\n');
  } else {
    process.stdout.write(formatReport(report));
  }
  return 0;
}

/** Each run's worst active alert: the folder replayed once through `watch`'s alert pipeline (a second read of its
 * files); a single file has none (alerts are judged per run folder). */
async function folderAlerts(path: string): Promise<Map<string, RunAlert> | undefined> {
  if (!(await stat(path)).isDirectory()) return undefined;
  // Loaded only here: the alert pipeline and the settings store cost a plain `inspect` ~0.4 s of start-up.
  const [{ replayAlerts }, { savedSettings }] = await Promise.all([
    import('../core/watch/replay-incident'),
    import('./watch-command'),
  ]);
  const replay = await replayAlerts(path, savedSettings());
  try {
    return worstAlerts(replay.list());
  } finally {
    await replay.close();
  }
}

const fmt = (v: number | null): string => formatValue(v, 6);

/** Longest config line printed; the JSON output has the whole config. */
const CONFIG_LINE_MAX = 200;
/** W&B's own bookkeeping (SDK versions, telemetry): in the JSON output, not in the table. */
const HIDDEN_CONFIG_KEYS = new Set(['_wandb']);

/** `key=value, …` in key order, scalars as written and nested values as compact JSON, cut to one
 * line; null when there is nothing to show. */
function configLine(config: Record<string, unknown>): string | null {
  const keys = Object.keys(config)
    .filter((k) => !HIDDEN_CONFIG_KEYS.has(k))
    .sort();
  if (keys.length === 0) return null;
  const text = keys
    .map((k) => {
      const v = config[k];
      return `${k}=${typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v))}`;
    })
    .join(', ');
  return text.length > CONFIG_LINE_MAX ? `${text.slice(0, CONFIG_LINE_MAX - 1)}…` : text;
}

export function formatReport(report: InspectReport): string {
  const out: string[] = [`${terminalSafe(report.root)}: ${report.runs.length} run(s)`];
  if (report.runs.length === 0)
    out.push('  no recognised metric files found (tfevents, CSV, JSON/JSONL, trainer_state.json, W&B)');
  for (const run of report.runs) {
    out.push('', `run ${terminalSafe(run.run)}`);
    for (const s of run.sources) {
      const errs = s.errors.length
        ? `  ${s.errors.length} error(s): ${s.errors
            .slice(0, 3)
            .map((e) => `${e.kind}@${e.offset}`)
            .join(', ')}`
        : '';
      out.push(`  ${s.format.padEnd(17)} ${terminalSafe(s.file)}  (${s.records} records)${errs}`);
    }
    if (run.progress) {
      const pct = run.progress.fraction === null ? '?' : `${(run.progress.fraction * 100).toFixed(1)}%`;
      const eta = run.progress.etaSeconds === null ? '' : `, ETA ${Math.round(run.progress.etaSeconds)} s`;
      out.push(`  progress ${pct}${eta}`);
    }
    if (run.sessions.length > 1) {
      out.push(
        `  ${run.sessions.length} sessions (the steps went back ${run.sessions.length - 1}×: restarts)`,
      );
      for (const sess of run.sessions) out.push(`    ${sessionText(sess)}`);
    }
    const config = run.config && configLine(run.config);
    if (config) out.push(`  config ${terminalSafe(config)}`);
    const texts = run.sources.reduce((n, s) => n + (s.texts ?? 0), 0);
    if (texts > 0) out.push(`  texts ${texts} item(s) (TensorBoard text summaries)`);
    for (const s of run.sources.flatMap((x) => x.samples ?? [])) {
      const dropped = s.dropped > 0 ? `, ${s.dropped} dropped` : '';
      out.push(`  samples ${terminalSafe(s.source)}: ${s.rows} over ${s.steps} step(s)${dropped}`);
    }
    const histograms = run.sources.reduce((n, s) => n + (s.histograms ?? 0), 0);
    if (histograms > 0) out.push(`  histograms ${histograms} step(s) kept (TensorBoard, W&B, trackio)`);
    const tags = Object.entries(run.scalars);
    if (tags.length) {
      const rows = [['tag', 'count', 'steps', 'last', 'min', 'max', 'non-finite']];
      for (const [tag, s] of tags) {
        rows.push([
          terminalSafe(tag),
          String(s.count),
          `${fmt(s.firstStep)}–${fmt(s.lastStep)}`,
          fmt(s.last),
          fmt(s.min),
          fmt(s.max),
          String(s.nonFinite),
        ]);
      }
      out.push(
        textTable(rows)
          .split('\n')
          .map((l) => '  ' + l)
          .join('\n'),
      );
    }
  }
  return out.join('\n') + '\n';
}
