// Counting the pixels of a PNG near a colour: how the export tests tell a drawn run from its background.

import { createCanvas, loadImage } from '@napi-rs/canvas';

/** How many pixels of `png` are within 24 of `rgb` in each channel. */
export async function pixelsNear(png: Uint8Array, rgb: readonly number[]): Promise<number> {
  const img = await loadImage(png);
  const ctx = createCanvas(img.width, img.height).getContext('2d');
  ctx.drawImage(img, 0, 0);
  const d = ctx.getImageData(0, 0, img.width, img.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4)
    if (
      Math.abs(d[i]! - rgb[0]!) < 24 &&
      Math.abs(d[i + 1]! - rgb[1]!) < 24 &&
      Math.abs(d[i + 2]! - rgb[2]!) < 24
    )
      n++;
  return n;
}
