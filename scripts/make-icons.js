// Draws the app and tray icons (a pulse line in a disc, coloured by health) as PNGs into resources/.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const out = fileURLToPath(new URL('../resources/', import.meta.url));

function crc32(buf) {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

function png(size, pixel) {
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    for (let x = 0; x < size; x++) {
      const [r, g, b, a] = pixel(x + 0.5, y + 0.5, size);
      const o = y * (size * 4 + 1) + 1 + x * 4;
      raw[o] = r;
      raw[o + 1] = g;
      raw[o + 2] = b;
      raw[o + 3] = a;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  ihdr[10] = 0;
  ihdr[11] = 0;
  ihdr[12] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Distance from (x, y) to the pulse polyline, in units of the icon size. */
function pulseDistance(u, v) {
  const pts = [
    [0.18, 0.55],
    [0.38, 0.55],
    [0.47, 0.3],
    [0.56, 0.72],
    [0.64, 0.48],
    [0.82, 0.48],
  ];
  let best = Infinity;
  for (let i = 0; i + 1 < pts.length; i++) {
    const [ax, ay] = pts[i],
      [bx, by] = pts[i + 1];
    const dx = bx - ax,
      dy = by - ay;
    const t = Math.max(0, Math.min(1, ((u - ax) * dx + (v - ay) * dy) / (dx * dx + dy * dy)));
    best = Math.min(best, Math.hypot(u - ax - t * dx, v - ay - t * dy));
  }
  return best;
}

function icon(color) {
  return (x, y, size) => {
    const u = x / size,
      v = y / size;
    const r = Math.hypot(u - 0.5, v - 0.5);
    const edge = Math.max(0, Math.min(1, (0.47 - r) * size));
    if (edge <= 0) return [0, 0, 0, 0];
    const line = Math.max(0, Math.min(1, (0.055 - pulseDistance(u, v)) * size));
    const [cr, cg, cb] = color;
    return [
      Math.round(cr * (1 - line) + 255 * line),
      Math.round(cg * (1 - line) + 255 * line),
      Math.round(cb * (1 - line) + 255 * line),
      Math.round(255 * edge),
    ];
  };
}

const COLORS = { ok: [22, 163, 74], warning: [217, 119, 6], critical: [220, 38, 38], app: [37, 99, 235] };
writeFileSync(out + 'icon.png', png(256, icon(COLORS.app)));
writeFileSync(
  fileURLToPath(new URL('../src/renderer/public/favicon.png', import.meta.url)),
  png(32, icon(COLORS.app)),
);
for (const h of ['ok', 'warning', 'critical']) writeFileSync(out + `tray-${h}.png`, png(32, icon(COLORS[h])));
console.log('icons written to', out);
