// Finds a table's step, wall-time and progress columns by normalised name (`time/total timesteps` = `time_total_timesteps`).

import { STEP_KEYS, WALL_KEYS } from '../readers/rows';

/** Lower-case, with every run of the separators real tools use (`/ _ - .` and spaces) as one `_`. */
export function normaliseColumnName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[/_\-.\s]+/g, '_');
}

/** Progress columns (a 0–1 fraction of the run done), most specific first; matched by normalised name. */
export const PROGRESS_KEYS = [
  'progress',
  'time_progress',
  'train_progress',
  'training_progress',
  'misc_progress',
];

export interface TableColumns {
  /** Column indices, -1 when the table has none. */
  step: number;
  wall: number;
  progress: number;
}

/** The first column whose normalised name is each kind's most specific key. */
export function pickColumns(names: readonly string[]): TableColumns {
  const byName = new Map<string, number>();
  names.forEach((n, i) => {
    const key = normaliseColumnName(n);
    if (key !== '' && !byName.has(key)) byName.set(key, i);
  });
  const find = (keys: readonly string[]): number => {
    for (const k of keys) {
      const i = byName.get(normaliseColumnName(k));
      if (i !== undefined) return i;
    }
    return -1;
  };
  return { step: find(STEP_KEYS), wall: find(WALL_KEYS), progress: find(PROGRESS_KEYS) };
}
