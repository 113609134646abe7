// Headless export of runs' data: full-resolution CSV (long and wide) and JSON history, written safely.

import { mkdir, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { findRuns, readRunWhole } from '../inspect';
import { ExportWriteError, writeAtomically } from './safe-write';
import { jsonHistory, longCsv, wideCsv, wideTable, type RunSeries } from './tables';

export interface DataExportOptions {
  /** Folder the files go to (created); never inside the exported folder. */
  out: string;
  csv: boolean;
  json: boolean;
  /** Only runs whose name matches; only tags whose name matches. */
  runs?: RegExp;
  tags?: RegExp;
  /** Called as each file is finished (or fails): progress for long exports. */
  onFile?: (event: ExportFileEvent) => void;
}

export type ExportFileEvent =
  | { kind: 'written'; path: string; bytes: number; done: number; total: number }
  | { kind: 'failed'; path: string; message: string; done: number; total: number };

export interface ExportReport {
  root: string;
  out: string;
  runs: string[];
  written: { path: string; bytes: number }[];
  failed: { path: string; message: string }[];
}

export class ExportUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExportUsageError';
  }
}

/** Characters no folder name should hold on any OS: controls and Windows' reserved ones. */
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_NAME = /[\u0000-\u001f\u007f:*?"<>|]/g;

/** A run name as one folder name: separators and control characters become `_`, '.' the root's name. */
export function runFolderName(run: string, root: string): string {
  const name = run === '.' ? (root.split(sep).filter(Boolean).pop() ?? 'run') : run;
  return (
    name
      .replace(/[\\/]+/g, '__')
      .replace(UNSAFE_IN_NAME, '_')
      .slice(0, 200) || 'run'
  );
}

/** Whether `path` is `root` or below it (`..out` is a name below it, not a way out). */
function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return !(rel === '..' || rel.startsWith('..' + sep) || isAbsolute(rel));
}

/** `path` with its nearest existing ancestor's symlinks resolved (the rest does not exist yet). */
async function realPathSoFar(path: string): Promise<string> {
  const tail: string[] = [];
  let p = path;
  for (;;) {
    try {
      return join(await realpath(p), ...tail);
    } catch {
      const parent = dirname(p);
      if (parent === p) return path;
      tail.unshift(basename(p));
      p = parent;
    }
  }
}

/** `out` resolved; an ExportUsageError when it is `root` or below it (symlinks resolved): rlwatch never writes where it reads. */
export async function outsideReadFolder(out: string, root: string): Promise<string> {
  const full = resolve(out);
  if (isInside(await realPathSoFar(full), await realpath(root))) {
    throw new ExportUsageError(
      `--out ${full} is inside ${root}: rlwatch never writes into the folder it reads; choose a folder outside it`,
    );
  }
  return full;
}

/** Exports every matching run under `path`; a file that cannot be written is reported and the rest go on. */
export async function exportData(path: string, opts: DataExportOptions): Promise<ExportReport> {
  const { root, runs } = await findRuns(path);
  const out = await outsideReadFolder(opts.out, root);
  const chosen = runs.filter((r) => !opts.runs || opts.runs.test(r.run));
  const perRun = (opts.csv ? 2 : 0) + (opts.json ? 1 : 0);
  const total = chosen.length * perRun;
  const report: ExportReport = { root, out, runs: chosen.map((r) => r.run), written: [], failed: [] };
  let done = 0;
  const used = new Set<string>();
  for (const d of chosen) {
    const read = await readRunWhole(d);
    const series: RunSeries = new Map([...read.series].filter(([tag]) => !opts.tags || opts.tags.test(tag)));
    // Two runs whose names map to one folder name (`a/b` and `a__b`) get distinct folders.
    let name = runFolderName(d.run, root);
    for (let n = 2; used.has(name); n++) name = `${runFolderName(d.run, root)}-${n}`;
    used.add(name);
    const dir = join(out, name);
    const files: [string, () => Iterable<string>][] = [];
    const table = opts.csv || opts.json ? wideTable(series) : null;
    if (opts.csv) {
      files.push(['metrics_long.csv', () => longCsv(d.run, series)]);
      files.push(['metrics_wide.csv', () => wideCsv(table!)]);
    }
    if (opts.json) files.push(['training_metrics.json', () => jsonHistory(table!)]);
    try {
      await mkdir(dir, { recursive: true });
    } catch (err) {
      const message = `cannot create ${dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`;
      for (const [name] of files) {
        done++;
        report.failed.push({ path: join(dir, name), message });
        opts.onFile?.({ kind: 'failed', path: join(dir, name), message, done, total });
      }
      continue;
    }
    for (const [name, chunks] of files) {
      const file = join(dir, name);
      done++;
      try {
        const bytes = await writeAtomically(file, chunks());
        report.written.push({ path: file, bytes });
        opts.onFile?.({ kind: 'written', path: file, bytes, done, total });
      } catch (err) {
        const message =
          err instanceof ExportWriteError ? err.message : `cannot write ${file}: ${String(err)}`;
        report.failed.push({ path: file, message });
        opts.onFile?.({ kind: 'failed', path: file, message, done, total });
      }
    }
  }
  return report;
}
