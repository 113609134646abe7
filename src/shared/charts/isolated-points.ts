// Isolated points: a finite point whose neighbours are both absent or non-finite draws no line, so it is drawn as a dot.

import type { Pt } from './series-model';

const drawable = (p: Pt | undefined): boolean => p !== undefined && Number.isFinite(p.y);

/** The points a line cannot show (no finite neighbour on either side), in order; TensorBoard draws these as dots. */
export function isolatedPoints(pts: readonly Pt[]): Pt[] {
  const out: Pt[] = [];
  for (let i = 0; i < pts.length; i++) {
    const p = pts[i]!;
    if (drawable(p) && !drawable(pts[i - 1]) && !drawable(pts[i + 1])) out.push(p);
  }
  return out;
}
