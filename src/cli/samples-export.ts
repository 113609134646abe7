// `rlwatch export PATH --out FOLDER --samples`: each run's sample tables as FOLDER/RUN/samples/SOURCE.jsonl and .csv.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { outsideReadFolder, runFolderName } from '../core/export/export-run';
import { writeAtomically } from '../core/export/safe-write';
import { findRuns } from '../core/inspect';
import { textSamples } from '../core/samples/text-samples';
import { readSource } from '../core/sources/registry';
import type { SampleSource } from '../shared/samples';
import { samplesCsvHeader, samplesCsvLines, samplesJsonlLines } from '../shared/samples-text';
import { safeFileName, UniqueNames } from '../shared/file-names';

export interface SamplesExportReport {
  written: string[];
  failed: { path: string; message: string }[];
}

/** Writes every sample source of every run under `path` (the `runs` filter applied) into `out`. */
export async function exportSamples(path: string, out: string, runs?: RegExp): Promise<SamplesExportReport> {
  const { root, runs: found } = await findRuns(path);
  // The one check (links resolved on both sides) every export makes: never into the folder read.
  const outDir = await outsideReadFolder(out, root);
  const report: SamplesExportReport = { written: [], failed: [] };
  const runNames = new UniqueNames();
  for (const d of found) {
    if (runs && !runs.test(d.run)) continue;
    const samples: SampleSource[] = [];
    for (const s of d.sources) {
      const r = await readSource(s.path, s.format, { member: s.member });
      if (r.samples && r.samples.count > 0) samples.push(r.samples);
      if (r.texts && r.texts.count > 0) samples.push(textSamples(r.texts));
    }
    if (samples.length === 0) continue;
    const dir = join(outDir, runNames.take(runFolderName(d.run, root)), 'samples');
    const names = new UniqueNames();
    for (const src of samples) {
      for (const info of src.sources()) {
        const base = names.take(safeFileName(info.source));
        const tables = info.steps.map((s) => ({ step: s.step, table: src.table(info.source, s.step)! }));
        const columns = [...new Set(tables.flatMap((t) => t.table.columns.map((c) => c.name)))];
        const files: [string, () => Iterable<string>][] = [
          [
            `${base}.jsonl`,
            function* () {
              for (const t of tables) yield* samplesJsonlLines(t.table, t.step);
            },
          ],
          [
            `${base}.csv`,
            function* () {
              yield samplesCsvHeader(columns);
              for (const t of tables) yield* samplesCsvLines(t.table, t.step, columns);
            },
          ],
        ];
        await mkdir(dir, { recursive: true });
        for (const [name, lines] of files) {
          const file = join(dir, name);
          try {
            await writeAtomically(file, lines());
            report.written.push(file);
          } catch (e) {
            report.failed.push({ path: file, message: e instanceof Error ? e.message : String(e) });
          }
        }
      }
    }
  }
  return report;
}
