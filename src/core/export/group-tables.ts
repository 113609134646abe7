// A seed group's bands as one tidy CSV (`export --groups --csv`): per tag and step its mean, band edges, n and band kind.

import type { DrawnGroup } from '../../shared/charts/group-bands';
import { csvLine } from '../../shared/csv-text';

/** The file beside a group's figures (`groups/GROUP/steps.csv`). */
export const GROUP_TABLE = 'steps.csv';

export const GROUP_TABLE_HEADER = ['tag', 'step', 'mean', 'lower', 'upper', 'n', 'band'] as const;

/**
 * `tag,step,mean,lower,upper,n,band`: a line per tag (in figure order) and step of its band, the numbers the group's
 * figure draws, each a plain number a reader takes without parsing; steps no run covers (n = 0) left out.
 */
export function* groupTableCsv(tags: readonly { tag: string; group: DrawnGroup }[]): Generator<string> {
  yield csvLine(GROUP_TABLE_HEADER);
  for (const { tag, group } of tags) {
    const b = group.band;
    let chunk = '';
    for (let i = 0; i < b.x.length; i++)
      if (b.n[i]! > 0)
        chunk += csvLine([tag, b.x[i]!, b.mean[i]!, b.lower[i]!, b.upper[i]!, b.n[i]!, b.band]);
    yield chunk;
  }
}
