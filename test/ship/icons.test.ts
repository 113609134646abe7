// Every app and tray icon make-icons.js writes is present and decodes: PNG sizes, and the .icns/.ico directories.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadImage } from '@napi-rs/canvas';
import { beforeAll, describe, expect, it } from 'vitest';
import { iconScript, repoRoot, type IconScript } from './scripts';

const resources = join(repoRoot, 'resources');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from a PNG's IHDR, after checking the signature. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  expect(bytes.toString('latin1', 12, 16)).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Apple .icns: 'icns', total length, then (type, length incl. header, data) chunks that tile the file. */
function icnsChunks(bytes: Buffer): { type: string; data: Buffer }[] {
  expect(bytes.toString('latin1', 0, 4)).toBe('icns');
  expect(bytes.readUInt32BE(4)).toBe(bytes.length);
  const chunks: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at + 4);
    expect(length).toBeGreaterThan(8);
    expect(at + length).toBeLessThanOrEqual(bytes.length);
    chunks.push({ type: bytes.toString('latin1', at, at + 4), data: bytes.subarray(at + 8, at + length) });
    at += length;
  }
  return chunks;
}

/** Windows .ico: ICONDIR (reserved 0, type 1, count) and one 16-byte entry per image, each inside the file. */
function icoEntries(bytes: Buffer): { width: number; data: Buffer }[] {
  expect(bytes.readUInt16LE(0)).toBe(0);
  expect(bytes.readUInt16LE(2)).toBe(1);
  const count = bytes.readUInt16LE(4);
  return Array.from({ length: count }, (_, i) => {
    const e = 6 + i * 16;
    const size = bytes.readUInt32LE(e + 8);
    const offset = bytes.readUInt32LE(e + 12);
    expect(offset + size).toBeLessThanOrEqual(bytes.length);
    return { width: bytes[e] || 256, data: bytes.subarray(offset, offset + size) };
  });
}

let icons: IconScript;
beforeAll(async () => {
  icons = await iconScript();
});

describe('icons', () => {
  it('lists the png set, .icns, .ico and tray icons per health with @2x, light/dark and templates', () => {
    const files = icons.iconFiles().map((f) => f.file);
    for (const s of [16, 32, 48, 128, 256, 512, 1024]) expect(files).toContain(`icons/${s}x${s}.png`);
    expect(files).toEqual(expect.arrayContaining(['icon.icns', 'icon.ico', 'icon.png']));
    for (const h of ['ok', 'warning', 'critical'])
      for (const suffix of ['', '@2x'])
        for (const variant of ['', '-light', '-dark', 'Template'])
          expect(files).toContain(`tray-${h}${variant}${suffix}.png`);
  });

  it('has every PNG present, with the size in its header and decodable at that size', async () => {
    for (const { file, size } of icons.iconFiles().filter((f) => f.size !== undefined)) {
      const path = join(resources, file);
      expect(existsSync(path), file).toBe(true);
      const bytes = readFileSync(path);
      expect(pngSize(bytes), file).toEqual({ width: size, height: size });
      const img = await loadImage(bytes);
      expect([img.width, img.height], file).toEqual([size, size]);
    }
  });

  it('draws macOS templates in black with alpha only, and colour elsewhere', async () => {
    const { createCanvas } = await import('@napi-rs/canvas');
    const pixels = async (file: string): Promise<Uint8ClampedArray> => {
      const img = await loadImage(readFileSync(join(resources, file)));
      const ctx = createCanvas(img.width, img.height).getContext('2d');
      ctx.drawImage(img, 0, 0);
      return ctx.getImageData(0, 0, img.width, img.height).data;
    };
    const opaqueColours = (data: Uint8ClampedArray): number[][] => {
      const out: number[][] = [];
      for (let i = 0; i < data.length; i += 4)
        if (data[i + 3]! > 0) out.push([data[i]!, data[i + 1]!, data[i + 2]!]);
      return out;
    };
    for (const h of icons.HEALTH_STATES) {
      const template = opaqueColours(await pixels(`tray-${h}Template@2x.png`));
      expect(template.length).toBeGreaterThan(100);
      expect(template.every(([r, g, b]) => r === 0 && g === 0 && b === 0)).toBe(true);
      const coloured = opaqueColours(await pixels(`tray-${h}@2x.png`));
      expect(coloured.some(([r, g, b]) => r !== g || g !== b)).toBe(true);
    }
  });

  it('has an .icns whose chunks tile the file and include PNGs up to 1024 px', async () => {
    const chunks = icnsChunks(readFileSync(join(resources, 'icon.icns')));
    const pngs = chunks.filter((c) => c.data.subarray(0, 8).equals(PNG_SIGNATURE));
    const widths = pngs.map((c) => pngSize(c.data).width);
    expect(widths).toEqual(expect.arrayContaining([32, 64, 128, 256, 512, 1024]));
    for (const c of pngs) expect((await loadImage(c.data)).width).toBe(pngSize(c.data).width);
  });

  it('has an .ico with 16 to 256 px images, each decodable at the size its entry states', async () => {
    const entries = icoEntries(readFileSync(join(resources, 'icon.ico')));
    expect(entries.map((e) => e.width)).toEqual(expect.arrayContaining([16, 24, 32, 48, 64, 128, 256]));
    for (const e of entries) {
      const isPng = e.data.subarray(0, 8).equals(PNG_SIGNATURE);
      // A BMP entry starts with a 40-byte BITMAPINFOHEADER whose width matches the directory.
      if (isPng) expect((await loadImage(e.data)).width).toBe(e.width);
      else expect([e.data.readUInt32LE(0), e.data.readInt32LE(4)]).toEqual([40, e.width]);
    }
  });
});
