// A chart's export from the window: asks the core to draw the figure (export.figure) and downloads the file.

import type { RequestArgs } from '../../../shared/contract';
import type { Backend } from '../backend/backend';
import { saveBlob } from '../lib/save-file';

/** What the chart menu asks for: PNG at a pixel ratio, or SVG, at a size in CSS pixels, in a style. */
export interface FigureChoice {
  format: 'png' | 'svg';
  scale: number;
  width: number;
  height: number;
  /** The screen look (default) or a paper's (PAPER_SIZE, paper-sized text and lines, the caption wrapped). */
  style?: 'screen' | 'paper';
  /** Draw the health band and its meaning (default on). */
  healthBands?: boolean;
}

/** The size of an exported chart unless the user picks one: 16:9, readable in a report at 1×. */
export const DEFAULT_FIGURE_SIZE = { width: 960, height: 540 } as const;

/** Draws the chart in the core and downloads it; answers the error message, or null when the file was saved. */
export async function exportChartFigure(
  backend: Backend,
  args: RequestArgs['export.figure'],
): Promise<string | null> {
  const r = await backend.invoke('export.figure', args);
  if (!r.ok) return r.error.message;
  // A Blob download: a browser saves it; Electron's window asks where, as for any download.
  saveBlob(new Blob([r.value.bytes.slice()], { type: r.value.mime }), r.value.fileName);
  return null;
}
