// The scalar series of one source or run, keyed by interned tag name.

import { ScalarSeries } from './scalar-series';

export class SeriesSet {
  private readonly byTag = new Map<string, ScalarSeries>();

  constructor(private readonly precision: 'f32' | 'f64' = 'f32') {}

  /** The series for `tag`, created on first use. Map lookup interns the tag string. */
  get(tag: string): ScalarSeries {
    let s = this.byTag.get(tag);
    if (!s) {
      s = new ScalarSeries(16, this.precision);
      this.byTag.set(tag, s);
    }
    return s;
  }

  /** Puts a series built elsewhere (`ScalarSeries.fromColumns`) under `tag`, replacing any. */
  adopt(tag: string, series: ScalarSeries): void {
    this.byTag.set(tag, series);
  }

  /** Removes the series of `tag`; returns whether there was one. */
  delete(tag: string): boolean {
    return this.byTag.delete(tag);
  }

  has(tag: string): boolean {
    return this.byTag.has(tag);
  }

  add(tag: string, step: number, wallTime: number, value: number): void {
    this.get(tag).append(step, wallTime, value);
  }

  tags(): string[] {
    return [...this.byTag.keys()].sort();
  }

  entries(): IterableIterator<[string, ScalarSeries]> {
    return this.byTag.entries();
  }

  /** The series, in insertion order (no tags: the memory guard's count of bytes). */
  series(): IterableIterator<ScalarSeries> {
    return this.byTag.values();
  }

  get size(): number {
    return this.byTag.size;
  }

  pointCount(): number {
    let n = 0;
    for (const s of this.byTag.values()) n += s.length;
    return n;
  }
}
