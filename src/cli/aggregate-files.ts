// `inspect --table --aggregate METRIC --out FOLDER`: the aggregate's tidy CSV, the performance profiles' CSV and their PNG (loaded only then: it needs the canvas).

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { profileFigure } from '../core/export/aggregate-figure';
import { ExportUsageError, outsideReadFolder } from '../core/export/export-run';
import { DEFAULT_FIGURE, renderFigure } from '../core/export/figure-render';
import { writeAtomically } from '../core/export/safe-write';
import { aggregateCsv, aggregateProfiles, profileCsv } from '../shared/compare/aggregate-table';
import type { AggregateResult } from './aggregate-output';
import { UsageError } from './usage';

/** Size of the profile figure in CSS pixels. */
const PROFILE_SIZE = { width: 1200, height: 800 };

/** Writes OUT/aggregate.csv, OUT/profile.csv and OUT/profile.png (never into the folder read); returns the files. */
export async function writeAggregateFiles(out: string, root: string, a: AggregateResult): Promise<string[]> {
  let dir: string;
  try {
    dir = await outsideReadFolder(out, root);
  } catch (err) {
    if (err instanceof ExportUsageError) throw new UsageError(err.message);
    throw err;
  }
  const profiles = aggregateProfiles(a.report);
  await mkdir(dir, { recursive: true });
  const files: [string, string | Uint8Array][] = [
    ['aggregate.csv', aggregateCsv(a.report, a.comparisons)],
    ['profile.csv', profileCsv(profiles)],
    ['profile.png', renderFigure(profileFigure(a.report, profiles), { ...DEFAULT_FIGURE, ...PROFILE_SIZE })],
  ];
  const written: string[] = [];
  for (const [name, body] of files) {
    const file = join(dir, name);
    await writeAtomically(file, [body]);
    written.push(file);
  }
  return written;
}
