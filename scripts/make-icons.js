// Rasterises resources/icon.svg into every app and tray icon the platforms need (png set, .icns, .ico, tray).
//
// One source, recoloured per use: the app icon (blue disc), tray icons per health state (16 px and @2x,
// for dark and light panels) and macOS template images (black, the pulse cut out; the badge tells the
// health apart since templates carry no colour). `node scripts/make-icons.js` rewrites them all.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createCanvas, Image } from '@napi-rs/canvas';
import png2icons from 'png2icons';

const resources = fileURLToPath(new URL('../resources/', import.meta.url));
const favicon = fileURLToPath(new URL('../src/renderer/public/favicon.png', import.meta.url));

/** Every size of the Linux png set (electron-builder's `resources/icons/NxN.png`); .icns/.ico come from 1024. */
export const APP_ICON_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];
export const HEALTH_STATES = ['ok', 'warning', 'critical'];
/** Tray icons are 16 px logical; `@2x` is picked by Electron on high-density displays. */
export const TRAY_SIZE = 16;
/** The pulse colour per panel: white on dark panels (the default file), near-black on light ones. */
export const TRAY_VARIANTS = { dark: '#ffffff', light: '#111827' };

const COLORS = { app: '#2563eb', ok: '#16a34a', warning: '#d97706', critical: '#dc2626' };

/** Every file this script writes, relative to resources/ (the test checks each exists and decodes). */
export function iconFiles() {
  const files = APP_ICON_SIZES.map((s) => ({ file: `icons/${s}x${s}.png`, size: s }));
  files.push({ file: 'icon.png', size: 256 }, { file: 'icon.icns' }, { file: 'icon.ico' });
  for (const h of HEALTH_STATES) {
    for (const [scale, suffix] of [
      [1, ''],
      [2, '@2x'],
    ]) {
      const size = TRAY_SIZE * scale;
      files.push({ file: `tray-${h}${suffix}.png`, size });
      for (const variant of Object.keys(TRAY_VARIANTS))
        files.push({ file: `tray-${h}-${variant}${suffix}.png`, size });
      files.push({ file: `tray-${h}Template${suffix}.png`, size });
    }
  }
  return files;
}

const source = () => readFileSync(resources + 'icon.svg', 'utf8');

const PULSE = /<polyline id="pulse"[^>]*\/>/;

/** The source with the disc and pulse recoloured. */
function recolour(svg, disc, pulse) {
  return svg
    .replace(/(id="disc"[^>]*fill=")[^"]*/, `$1${disc}`)
    .replace(/(id="pulse"[^>]*stroke=")[^"]*/, `$1${pulse}`);
}

/**
 * A macOS template (black with alpha only): the disc, the pulse erased from it, and a badge for health —
 * none for ok, a ring for warning, a filled dot for critical (templates carry no colour).
 */
function templateLayers(svg, badge) {
  const black = recolour(svg, '#000000', '#000000');
  const marker =
    badge === 'none'
      ? ''
      : `<circle cx="82" cy="18" r="14" fill="${badge === 'filled' ? '#000' : 'none'}" stroke="#000" stroke-width="6"/>`;
  const discOnly = black.replace(PULSE, '');
  const pulseOnly = black.replace(/<circle id="disc"[^>]*\/>/, '');
  const badgeOnly = discOnly.replace(/<circle id="disc"[^>]*\/>/, marker);
  const erase = `<circle cx="82" cy="18" r="20" fill="#000"/>`;
  const badgeGap = discOnly.replace(/<circle id="disc"[^>]*\/>/, badge === 'none' ? '' : erase);
  return [
    { svg: discOnly },
    { svg: pulseOnly, op: 'destination-out' },
    { svg: badgeGap, op: 'destination-out' },
    { svg: badgeOnly },
  ];
}

/** SVG layers drawn in order (each with its compositing operation) at size × size pixels, as PNG bytes. */
export function rasterise(layers, size) {
  const canvas = createCanvas(size, size);
  const ctx = canvas.getContext('2d');
  for (const { svg, op = 'source-over' } of typeof layers === 'string' ? [{ svg: layers }] : layers) {
    const img = new Image();
    img.width = size;
    img.height = size;
    img.src = Buffer.from(svg);
    ctx.globalCompositeOperation = op;
    ctx.drawImage(img, 0, 0, size, size);
  }
  return canvas.toBuffer('image/png');
}

function writeAll() {
  const svg = source();
  const app = recolour(svg, COLORS.app, '#ffffff');
  mkdirSync(resources + 'icons', { recursive: true });
  for (const s of APP_ICON_SIZES) writeFileSync(resources + `icons/${s}x${s}.png`, rasterise(app, s));
  writeFileSync(resources + 'icon.png', rasterise(app, 256));
  writeFileSync(favicon, rasterise(app, 32));
  const big = rasterise(app, 1024);
  writeFileSync(resources + 'icon.icns', png2icons.createICNS(big, png2icons.BICUBIC2, 0));
  writeFileSync(resources + 'icon.ico', png2icons.createICO(big, png2icons.BICUBIC2, 0, true, true));
  const badge = { ok: 'none', warning: 'ring', critical: 'filled' };
  for (const h of HEALTH_STATES) {
    for (const [scale, suffix] of [
      [1, ''],
      [2, '@2x'],
    ]) {
      const size = TRAY_SIZE * scale;
      const coloured = (pulse) => rasterise(recolour(svg, COLORS[h], pulse), size);
      writeFileSync(resources + `tray-${h}${suffix}.png`, coloured(TRAY_VARIANTS.dark));
      for (const [variant, pulse] of Object.entries(TRAY_VARIANTS))
        writeFileSync(resources + `tray-${h}-${variant}${suffix}.png`, coloured(pulse));
      writeFileSync(
        resources + `tray-${h}Template${suffix}.png`,
        rasterise(templateLayers(svg, badge[h]), size),
      );
    }
  }
  console.log(`${iconFiles().length} icons written to ${resources}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeAll();
