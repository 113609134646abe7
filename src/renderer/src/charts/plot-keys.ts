// Keyboard zoom, pan and hover on a focused plot: which key does what (+ / − zoom, ← / → pan, 0 or Home resets,
// Shift+← / → step the linked hover point by point, Escape ends it).

export type PlotKeyAction =
  | { kind: 'zoom'; factor: number }
  /** Pan by this fraction of the plot's width (positive moves the view left, to earlier x). */
  | { kind: 'pan'; fraction: number }
  | { kind: 'reset' }
  /** Move the linked hover to the previous (-1) or next (+1) logged point of the chart's first run. */
  | { kind: 'hover'; dir: -1 | 1 }
  | { kind: 'hover-end' };

/** One key press zooms by this factor. */
const ZOOM_STEP = 1.5;
/** One arrow press pans by this fraction of the plot's width. */
const PAN_FRACTION = 0.15;

/** What a key does on the plot; null for keys the plot leaves alone. */
export function plotKeyAction(key: string, shift = false): PlotKeyAction | null {
  if (shift && (key === 'ArrowLeft' || key === 'ArrowRight'))
    return { kind: 'hover', dir: key === 'ArrowLeft' ? -1 : 1 };
  switch (key) {
    case '+':
    case '=':
      return { kind: 'zoom', factor: ZOOM_STEP };
    case '-':
    case '_':
      return { kind: 'zoom', factor: 1 / ZOOM_STEP };
    case 'ArrowLeft':
      return { kind: 'pan', fraction: PAN_FRACTION };
    case 'ArrowRight':
      return { kind: 'pan', fraction: -PAN_FRACTION };
    case '0':
    case 'Home':
      return { kind: 'reset' };
    case 'Escape':
      return { kind: 'hover-end' };
    default:
      return null;
  }
}

/**
 * The x the keyboard hover moves to from `from` (null: no keyboard hover yet) over ascending xs `xs`: the next
 * (`dir` 1) or previous logged x; with no hover yet, the newest point (the one a user watching a run wants first).
 * Stays at either end; null when there are no points.
 */
export function steppedX(xs: readonly number[], from: number | null, dir: -1 | 1): number | null {
  const n = xs.length;
  if (n === 0) return null;
  if (from === null) return xs[n - 1]!;
  let lo = 0;
  let hi = n;
  // The first index whose x is past `from` in the direction of travel.
  if (dir > 0) {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (xs[mid]! <= from) lo = mid + 1;
      else hi = mid;
    }
    return xs[Math.min(lo, n - 1)]!;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < from) lo = mid + 1;
    else hi = mid;
  }
  return xs[Math.max(lo - 1, 0)]!;
}
