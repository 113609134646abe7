// What the reader itself says about a folder (`rlwatch inspect --json`): its runs, their files and read errors.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from '../cli-process';
import type { ReportedReadError } from './invariants';

export interface InspectedRun {
  run: string;
  /** The folder holding the run's files. */
  dir: string;
  files: { file: string; format: string; records: number }[];
  errors: ReportedReadError[];
  /** Sessions as the reader counts them (each restart starts one; writers at once kept apart). */
  sessions: number;
}

interface InspectJson {
  root: string;
  runs: {
    run: string;
    sources: { file: string; format: string; records: number; errors: { kind: string }[] }[];
    sessions: unknown[];
  }[];
}

/** Runs the built CLI's `inspect --json DIR` and returns its runs. */
export function inspectRuns(dir: string): InspectedRun[] {
  const r = spawnSync(process.execPath, [CLI, 'inspect', '--json', dir], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`rlwatch inspect --json ${dir} failed (${r.status}): ${r.stderr}`);
  const json = JSON.parse(r.stdout) as InspectJson;
  return json.runs.map((run) => {
    const nested = join(json.root, run.run);
    const first = run.sources[0]?.file;
    return {
      run: run.run,
      dir: first && existsSync(join(nested, first)) ? nested : json.root,
      files: run.sources.map((s) => ({ file: s.file, format: s.format, records: s.records })),
      errors: run.sources.flatMap((s) => s.errors.map((e) => ({ file: s.file, kind: e.kind }))),
      sessions: run.sessions.length,
    };
  });
}
