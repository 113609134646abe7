// Bounds of a figure exported from the window (export.figure): CSS pixels per side and a PNG's pixel ratio.

export const FIGURE_BOUNDS = {
  minWidth: 200,
  maxWidth: 4096,
  minHeight: 120,
  maxHeight: 4096,
  minScale: 1,
  /** 3×, and the paper preset's 300 dpi (300 / 96). */
  maxScale: 3.125,
} as const;
