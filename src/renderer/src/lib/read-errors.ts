// A run's read errors, flattened for the sidebar badge and the run's error list: which file, where, what kind, what was kept.

import type { RunInfo, SourceInfo } from '../../../shared/domain';

export interface RunReadError {
  file: string;
  format: SourceInfo['format'];
  offset: number;
  kind: string;
  message: string;
  /** Records read from the file (what was kept). */
  records: number;
}

/** Pure: every read error of every source of the run, in source order then file offset order. */
export function readErrorsOf(run: Pick<RunInfo, 'sources'>): RunReadError[] {
  return run.sources.flatMap((s) =>
    [...s.errors]
      .sort((a, b) => a.offset - b.offset)
      .map((e) => ({
        file: s.file,
        format: s.format,
        offset: e.offset,
        kind: e.kind,
        message: e.message,
        records: s.records,
      })),
  );
}

/** The sidebar badge's text, null for a run read without errors. */
export function readErrorBadge(run: Pick<RunInfo, 'sources'>): string | null {
  const n = run.sources.reduce((sum, s) => sum + s.errors.length, 0);
  if (n === 0) return null;
  const files = run.sources.filter((s) => s.errors.length > 0).length;
  return `${n} read error${n === 1 ? '' : 's'}${files > 1 ? ` in ${files} files` : ''}`;
}
