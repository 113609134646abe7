// Per run and tag: the last point and the extremes of every point seen, and every point of the few tags the epoch summary needs (Epoch/*, eval).

import type { SeriesDelta } from '../../shared/domain';

export interface TagPoints {
  steps: number[];
  values: number[];
}

export interface TagTail {
  count: number;
  lastStep: number;
  lastValue: number;
}

/** A tag's tail with the wall time of its last point (seconds since epoch; NaN when its source logs none):
 * what `/metrics` exposes. */
export interface LastPoint extends TagTail {
  lastWallTime: number;
}

/** A tag's last point with the smallest and largest finite value of every point the deltas brought: the view as it
 * stands, and an earlier session's points sent before a restart hid them (points a restart hid before they were
 * sent, as in a file read whole, are not counted); null before a finite one. Kept as points arrive: O(1) to read. */
export interface TagExtremes extends LastPoint {
  min: number | null;
  max: number | null;
}

/** Epoch-level and evaluation tags are logged once per epoch: keeping them whole costs little. */
export const KEEP_ALL_TAG = /^(epoch|eval|evaluation|val|validation)[/_]/i;
const KEEP_LIMIT = 100_000;
const EMPTY: ReadonlyMap<string, TagExtremes> = new Map();

export class TagTracker {
  private readonly tails = new Map<string, Map<string, TagExtremes>>();
  private readonly kept = new Map<string, Map<string, TagPoints>>();

  constructor(private readonly keepAll: (tag: string) => boolean = (t) => KEEP_ALL_TAG.test(t)) {}

  /** `d.from` is an index in the live view: points before it are unchanged, points from it on are replaced
   * (after a restart or rebuild the workspace continues from the cut). */
  observe(d: SeriesDelta): void {
    const n = d.steps.length;
    if (n === 0) return;
    let run = this.tails.get(d.run);
    if (!run) this.tails.set(d.run, (run = new Map()));
    // Extremes only grow: a rewound view's re-sent points were counted already, the points it dropped stay counted.
    const held = run.get(d.tag);
    let min = held?.min ?? Infinity;
    let max = held?.max ?? -Infinity;
    for (let i = 0; i < n; i++) {
      const v = d.values[i]!;
      if (!Number.isFinite(v)) continue;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    run.set(d.tag, {
      count: d.from + n,
      lastStep: d.steps[n - 1]!,
      lastValue: d.values[n - 1]!,
      lastWallTime: d.wallTimes[n - 1]!,
      min: min === Infinity ? null : min,
      max: max === -Infinity ? null : max,
    });
    if (!this.keepAll(d.tag)) return;
    let kr = this.kept.get(d.run);
    if (!kr) this.kept.set(d.run, (kr = new Map()));
    let pts = kr.get(d.tag);
    if (!pts) kr.set(d.tag, (pts = { steps: [], values: [] }));
    if (pts.steps.length > d.from) {
      pts.steps.length = d.from;
      pts.values.length = d.from;
    }
    for (let i = 0; i < n && pts.steps.length < KEEP_LIMIT; i++) {
      pts.steps.push(d.steps[i]!);
      pts.values.push(d.values[i]!);
    }
  }

  /** A reset only announces that the next delta's `from` rewinds; dropping the tag would lose the points
   * before the cut, which the workspace does not send again. Kept for runs that go away. */
  forgetRun(run: string): void {
    this.tails.delete(run);
    this.kept.delete(run);
  }

  tail(run: string, tag: string): TagTail | null {
    const t = this.tails.get(run)?.get(tag);
    return t ? { count: t.count, lastStep: t.lastStep, lastValue: t.lastValue } : null;
  }

  /** Every tag's last point and extremes in `run` (empty for an unknown run); a live view, not a copy. */
  lastPoints(run: string): ReadonlyMap<string, TagExtremes> {
    return this.tails.get(run) ?? EMPTY;
  }

  points(run: string, tag: string): TagPoints | null {
    return this.kept.get(run)?.get(tag) ?? null;
  }

  tags(run: string): string[] {
    return [...(this.tails.get(run)?.keys() ?? [])].sort();
  }

  clear(): void {
    this.tails.clear();
    this.kept.clear();
  }
}
