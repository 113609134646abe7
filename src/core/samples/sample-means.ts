// Per-step means of a sample source's number columns (and its completion text's length), charted as derived series.

import { sampleCharsTag, sampleMeanTag } from '../../shared/samples';
import { STEP_KEYS, WALL_KEYS, wallSeconds } from '../readers/rows';
import type { SeriesSet } from '../series/series-set';

/** Number columns one source charts at most (the first seen); the rest stay in the samples view only. */
export const SAMPLE_MEAN_COLUMNS = 32;

/** Columns whose text is the sample's output, best first: the first of them a source logs as text is measured. */
const OUTPUT_KEYS = [
  'completion',
  'completions',
  'response',
  'responses',
  'generation',
  'generations',
  'generated_text',
  'output',
  'outputs',
  'output_text',
  'answer',
  'text',
];
const OUTPUT_RANK = new Map(OUTPUT_KEYS.map((k, i) => [k, i]));
/** Axes, not measures: never averaged. */
const STEP_NAMES: ReadonlySet<string> = new Set(STEP_KEYS);
const WALL_RANK = new Map<string, number>(WALL_KEYS.map((k, i) => [k, i]));

/** A column's values at one step: their sum and count; `mixed` once a value is not a finite number. */
interface Acc {
  sum: number;
  n: number;
  mixed: boolean;
}

interface OpenStep {
  step: number;
  columns: Map<string, Acc>;
  chars: number;
  texts: number;
  /** The latest wall time a row of the step carries (NaN: none). */
  wall: number;
  /** Columns not (yet) charted that held something other than a number at this step. */
  other: Set<string>;
}

interface SourceMeans {
  /** The number columns charted, in the order first seen (at most SAMPLE_MEAN_COLUMNS). */
  charted: Set<string>;
  /** The output text column measured: undefined until a row shows one. */
  output: string | undefined;
  open: OpenStep | null;
  /** The step charted last: rows of it arriving later are not charted again. */
  lastCharted: number | null;
}

/** Characters as Python's len counts them: code points (a surrogate pair is one). */
export function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** The lower-case last part of a column name (`rewards/format_reward` → `format_reward`). */
export function leaf(name: string): string {
  return name.toLowerCase().split(/[/.]/).pop() ?? '';
}

/**
 * The one place a sample source's per-step means are computed. Rows arrive in logged order; a step is complete
 * when a row of another step starts (`row`) or the writer is done or quiet (`closeAll`): then each number column's
 * mean over the step's rows (nulls skipped; a step where the column holds anything but finite numbers is not
 * charted) goes into the series as `samples/SOURCE/mean/COLUMN`, and the output text column's mean length in code
 * points as `samples/SOURCE/mean_chars/COLUMN`, at the step, at the latest wall time its rows carry (else NaN).
 */
export class SampleMeans {
  private readonly bySource = new Map<string, SourceMeans>();

  constructor(private readonly series: () => SeriesSet) {}

  /** One sample of `source` at `step`, its values as logged (before any cut); `at`: the wall time its writer logged
   * it at, where the row itself has no time column (a trackio metrics row's timestamp). */
  row(
    source: string,
    step: number,
    values: readonly (readonly [string, unknown])[],
    at: number = Number.NaN,
  ): void {
    let s = this.bySource.get(source);
    if (!s)
      this.bySource.set(
        source,
        (s = { charted: new Set(), output: undefined, open: null, lastCharted: null }),
      );
    if (s.open !== null && s.open.step !== step) this.close(source, s);
    if (s.open === null) {
      if (step === s.lastCharted) return; // a late row of a step already charted
      s.open = { step, columns: new Map(), chars: 0, texts: 0, wall: Number.NaN, other: new Set() };
    }
    const open = s.open;
    if (s.output === undefined) s.output = outputColumn(values);
    let wall = at;
    let wallRank = Infinity;
    for (const [name, v] of values) {
      const lower = name.toLowerCase();
      const wr = WALL_RANK.get(lower);
      if (wr !== undefined) {
        const w = wallSeconds(v);
        if (w !== undefined && wr < wallRank) [wall, wallRank] = [w, wr];
        continue;
      }
      if (STEP_NAMES.has(lower) || v === null || v === undefined) continue;
      if (name === s.output) {
        if (typeof v === 'string') {
          open.chars += codePoints(v);
          open.texts++;
        }
        continue;
      }
      const number = typeof v === 'number' && Number.isFinite(v);
      if (!s.charted.has(name)) {
        if (s.charted.size >= SAMPLE_MEAN_COLUMNS) continue;
        if (!number) {
          // Remembered in case the column turns out to hold numbers later in this step: then it is mixed here.
          open.other.add(name);
          continue;
        }
        s.charted.add(name);
      }
      let acc = open.columns.get(name);
      if (!acc) open.columns.set(name, (acc = { sum: 0, n: 0, mixed: open.other.has(name) }));
      if (number) {
        acc.sum += v;
        acc.n++;
      } else acc.mixed = true;
    }
    if (!Number.isNaN(wall) && !(wall <= open.wall)) open.wall = wall;
  }

  /** Charts every source's open step (the writer is done, or a whole table was added, or the file went quiet). */
  closeAll(): void {
    for (const [source, s] of this.bySource) if (s.open !== null) this.close(source, s);
  }

  /** Whether a step is waiting to be charted. */
  get pending(): boolean {
    for (const s of this.bySource.values()) if (s.open !== null) return true;
    return false;
  }

  private close(source: string, s: SourceMeans): void {
    const open = s.open!;
    s.open = null;
    s.lastCharted = open.step;
    const series = this.series();
    for (const [name, acc] of open.columns) {
      const mean = acc.sum / acc.n;
      if (acc.n > 0 && !acc.mixed && Number.isFinite(mean))
        series.add(sampleMeanTag(source, name), open.step, open.wall, mean);
    }
    if (open.texts > 0 && s.output !== undefined)
      series.add(sampleCharsTag(source, s.output), open.step, open.wall, open.chars / open.texts);
  }
}

/** The best-ranked output column among a row's text values, or undefined when it has none. */
function outputColumn(values: readonly (readonly [string, unknown])[]): string | undefined {
  let best: string | undefined;
  let rank = Infinity;
  for (const [name, v] of values) {
    if (typeof v !== 'string') continue;
    const r = OUTPUT_RANK.get(leaf(name));
    if (r !== undefined && r < rank) {
      best = name;
      rank = r;
    }
  }
  return best;
}
