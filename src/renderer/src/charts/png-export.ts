// Saves a chart's canvas as a PNG download, on the panel's background (a transparent PNG reads badly elsewhere).

import type { ChartTheme } from '../../../shared/charts/chart-theme';

/** The download's file name: the tag with anything unsafe in a file name replaced. */
export function pngFileName(tag: string): string {
  return `${tag.replace(/[^\w.-]+/g, '_') || 'chart'}.png`;
}

/** Copies `canvas` onto the theme's panel colour and downloads it as `<tag>.png`. */
export function savePng(canvas: HTMLCanvasElement, theme: ChartTheme, tag: string): void {
  const out = document.createElement('canvas');
  out.width = canvas.width;
  out.height = canvas.height;
  const ctx = out.getContext('2d');
  if (!ctx) return;
  ctx.fillStyle = theme.panel || (theme.dark ? '#1a1f25' : '#ffffff');
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.drawImage(canvas, 0, 0);
  out.toBlob((blob) => {
    if (!blob) return;
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = pngFileName(tag);
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }, 'image/png');
}
