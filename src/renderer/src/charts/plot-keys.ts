// Keyboard zoom and pan on a focused plot: which key does what (+ / − zoom, ← / → pan, 0 or Home resets).

export type PlotKeyAction =
  | { kind: 'zoom'; factor: number }
  /** Pan by this fraction of the plot's width (positive moves the view left, to earlier x). */
  | { kind: 'pan'; fraction: number }
  | { kind: 'reset' };

/** One key press zooms by this factor. */
const ZOOM_STEP = 1.5;
/** One arrow press pans by this fraction of the plot's width. */
const PAN_FRACTION = 0.15;

/** What a key does on the plot; null for keys the plot leaves alone. */
export function plotKeyAction(key: string): PlotKeyAction | null {
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
    default:
      return null;
  }
}
