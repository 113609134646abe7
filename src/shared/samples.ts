// Sample tables (completions, W&B tables, TensorBoard text): one shape per (run, source, step), pages and histograms of it.

/** A cell as its writer logged it: text, a number, or nothing. */
export type SampleCell = string | number | null;

/** A named column: `number` when every value it holds is a number, else `text`. */
export interface SampleColumn {
  name: string;
  kind: 'text' | 'number';
}

/** One sample: its cells in column order (a row logged before a column appeared is shorter: null past its end). */
export interface SampleRow {
  cells: SampleCell[];
  /** A text cell of this row was cut at the per-cell cap. */
  truncated: boolean;
}

/** The samples one source logged at one step. */
export interface SampleTable {
  columns: readonly SampleColumn[];
  rows: readonly SampleRow[];
}

/** Where a source's samples come from: completions JSONL, W&B tables, TensorBoard text, trackio tables and traces. */
export const SAMPLE_ORIGINS = ['jsonl', 'wandb', 'text', 'trackio'] as const;
export type SampleOrigin = (typeof SAMPLE_ORIGINS)[number];

/** A step of a source and how many samples it holds. */
export interface SampleStepInfo {
  step: number;
  rows: number;
}

/** A source of a run's samples (a completions file, a W&B table key, a TensorBoard text tag, a trackio table or trace key). */
export interface SampleSourceInfo {
  source: string;
  origin: SampleOrigin;
  /** Samples kept, over all steps. */
  rows: number;
  /** Samples left out because the source's byte budget was spent. */
  dropped: number;
  /** Steps in ascending order. */
  steps: SampleStepInfo[];
}

/** What a reader's samples offer (the workspace, inspect, export). */
export interface SampleSource {
  /** Samples kept. */
  readonly count: number;
  /** Samples left out (a byte budget was spent, or a table file could not be read whole). */
  readonly dropped: number;
  sources(): SampleSourceInfo[];
  /** The samples `source` logged at `step`, or null. */
  table(source: string, step: number): SampleTable | null;
}

/** How a page orders its rows: by a column's value, or by a text column's length in characters. */
export interface SampleSort {
  column: string;
  by?: 'value' | 'length';
  desc?: boolean;
}

/** A histogram of one measure over a step's (matching) samples: equal bins from min to max. */
export interface SampleHistogram {
  column: string;
  measure: 'value' | 'length';
  min: number;
  max: number;
  counts: number[];
}

/** samples.get's answer: one page of a step's samples (or of every step's), after search and sort. */
export interface SamplePage {
  run: string;
  source: string;
  /** The step asked for; null: every step's samples, in step order. */
  step: number | null;
  columns: SampleColumn[];
  /** Samples of the step. */
  total: number;
  /** Samples matching the search (all when there is none). */
  matched: number;
  offset: number;
  rows: SampleCell[][];
  /** Per page row: a cell was cut at the per-cell cap. */
  truncated: boolean[];
  /** Per page row: its position in the step as logged (0-based). */
  index: number[];
  /** Per page row: its step. */
  steps: number[];
  /** Per number column its values, per text column its lengths, over the matching samples. */
  histograms: SampleHistogram[];
}

/** Characters of a text cell kept at most (UTF-16 code units: about 1 MB of text); the rest is cut. */
export const SAMPLE_CELL_CHARS = 1024 * 1024;
/** Rows one samples.get answers at most. */
export const SAMPLE_PAGE_MAX = 1000;
/**
 * Characters of text one samples.get answers at most (its first row whatever its size): a page of long completions
 * comes back shorter, so an answer stays well under a remote link's 16 MiB message cap (JSON escapes included) and
 * quick to lay out. A pager steps by the rows it got.
 */
export const SAMPLE_PAGE_CHARS = 2 * 1024 * 1024;
/** Bins of a page's histograms. */
export const SAMPLE_HISTOGRAM_BINS = 20;

/**
 * The chart tag of a sample source's per-step mean of a number column (`samples/completions.jsonl/mean/reward`), and
 * of a text column's mean length in characters (`…/mean_chars/completion`): series derived from the samples, under
 * the `samples/` root, the column last so a cut chart title keeps it. Parentheses are not used: ` (label)` names
 * another writer's series (writer-tag.ts).
 */
export function sampleMeanTag(source: string, column: string): string {
  return `samples/${source}/mean/${column}`;
}

export function sampleCharsTag(source: string, column: string): string {
  return `samples/${source}/mean_chars/${column}`;
}

/** The column a derived tag charts (`chars`: its mean length), or null for any other tag. */
export function sampleMeanColumn(tag: string): { column: string; chars: boolean } | null {
  const m = /^samples\/.+?\/(mean|mean_chars)\/(.+)$/.exec(tag);
  return m ? { column: m[2]!, chars: m[1] === 'mean_chars' } : null;
}

/** Whether a tag is one of those derived series (they chart only: no health rule judges them). */
export function isSampleMeanTag(tag: string): boolean {
  return sampleMeanColumn(tag) !== null;
}
