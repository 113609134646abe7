// The source formats and read-error kinds of the inspect contract, as plain string unions.

export type SourceFormatName =
  | 'tfevents'
  | 'csv'
  | 'json'
  | 'jsonl'
  | 'trainer_state'
  | 'training_progress'
  | 'wandb'
  | 'mlflow'
  | 'trackio'
  | 'completions';

export type ReadErrorKindName =
  | 'truncated'
  | 'bad-length-crc'
  | 'bad-data-crc'
  | 'decode'
  | 'io'
  | 'too-large';

/**
 * When several formats of one run carry the same tag (the demo writes an event file and a CSV with the same
 * metrics), the dashboard and the figures show the first format of this list only: no doubled points.
 */
const FORMAT_PRIORITY: readonly SourceFormatName[] = [
  'tfevents',
  'wandb',
  'mlflow',
  'trackio',
  'trainer_state',
  'jsonl',
  'csv',
  'json',
  'training_progress',
  'completions',
];

const rankOf = (f: SourceFormatName): number => {
  const r = FORMAT_PRIORITY.indexOf(f);
  return r < 0 ? FORMAT_PRIORITY.length : r;
};

/** The parts of one tag that are shown: those of the best-ranked format among them, in their order. */
export function bestFormatParts<T>(parts: readonly T[], formatOf: (p: T) => SourceFormatName): T[] {
  let best = Number.POSITIVE_INFINITY;
  for (const p of parts) best = Math.min(best, rankOf(formatOf(p)));
  return parts.filter((p) => rankOf(formatOf(p)) === best);
}
