// The run palette is colour-blind safe: every pair stays apart under simulated deuteranopia and protanopia (ΔE2000).

import { describe, expect, test } from 'vitest';
import { PALETTE, runColor, runDash } from '../../../src/shared/charts/chart-theme';

type Rgb = [number, number, number];

const hex = (h: string): Rgb => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)) as Rgb;
const toLinear = (c: number): number => {
  const v = c / 255;
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
};
const toGamma = (c: number): number => {
  const v = Math.min(1, Math.max(0, c));
  return 255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055);
};

/** Machado, Oliveira & Fernandes (2009), severity 1.0, applied in linear RGB. */
const CVD: Record<'deuteranopia' | 'protanopia', number[][]> = {
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
};

function simulate(rgb: Rgb, m: number[][]): Rgb {
  const l = rgb.map(toLinear);
  return m.map((r) => toGamma(r[0]! * l[0]! + r[1]! * l[1]! + r[2]! * l[2]!)) as Rgb;
}

/** sRGB → CIELAB (D65). */
function lab(rgb: Rgb): Rgb {
  const [r, g, b] = rgb.map(toLinear) as Rgb;
  const f = (t: number): number => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  const x = f((r * 0.4124 + g * 0.3576 + b * 0.1805) / 0.95047);
  const y = f(r * 0.2126 + g * 0.7152 + b * 0.0722);
  const z = f((r * 0.0193 + g * 0.1192 + b * 0.9505) / 1.08883);
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)];
}

/** CIEDE2000 (Sharma, Wu & Dalal 2005). */
function deltaE2000([L1, a1, b1]: Rgb, [L2, a2, b2]: Rgb): number {
  const rad = Math.PI / 180;
  const Cbar = (Math.hypot(a1, b1) + Math.hypot(a2, b2)) / 2;
  const G = 0.5 * (1 - Math.sqrt(Cbar ** 7 / (Cbar ** 7 + 25 ** 7)));
  const a1p = (1 + G) * a1;
  const a2p = (1 + G) * a2;
  const C1p = Math.hypot(a1p, b1);
  const C2p = Math.hypot(a2p, b2);
  const hue = (b: number, a: number): number => {
    if (b === 0 && a === 0) return 0;
    const h = Math.atan2(b, a) / rad;
    return h < 0 ? h + 360 : h;
  };
  const h1p = hue(b1, a1p);
  const h2p = hue(b2, a2p);
  let dh = 0;
  if (C1p * C2p !== 0) {
    dh = h2p - h1p;
    if (dh > 180) dh -= 360;
    else if (dh < -180) dh += 360;
  }
  const dL = L2 - L1;
  const dC = C2p - C1p;
  const dH = 2 * Math.sqrt(C1p * C2p) * Math.sin((dh * rad) / 2);
  const Lbar = (L1 + L2) / 2;
  const Cbarp = (C1p + C2p) / 2;
  let hbar = h1p + h2p;
  if (C1p * C2p !== 0) hbar = Math.abs(h1p - h2p) > 180 ? (h1p + h2p + 360) / 2 : (h1p + h2p) / 2;
  if (hbar >= 360) hbar -= 360;
  const T =
    1 -
    0.17 * Math.cos((hbar - 30) * rad) +
    0.24 * Math.cos(2 * hbar * rad) +
    0.32 * Math.cos((3 * hbar + 6) * rad) -
    0.2 * Math.cos((4 * hbar - 63) * rad);
  const dTheta = 30 * Math.exp(-(((hbar - 275) / 25) ** 2));
  const RC = 2 * Math.sqrt(Cbarp ** 7 / (Cbarp ** 7 + 25 ** 7));
  const SL = 1 + (0.015 * (Lbar - 50) ** 2) / Math.sqrt(20 + (Lbar - 50) ** 2);
  const SC = 1 + 0.045 * Cbarp;
  const SH = 1 + 0.015 * Cbarp * T;
  const RT = -Math.sin(2 * dTheta * rad) * RC;
  return Math.sqrt((dL / SL) ** 2 + (dC / SC) ** 2 + (dH / SH) ** 2 + RT * (dC / SC) * (dH / SH));
}

function minPairwise(colours: readonly string[], m: number[][] | null): { de: number; pair: string } {
  let best = { de: Infinity, pair: '' };
  for (let i = 0; i < colours.length; i++)
    for (let j = i + 1; j < colours.length; j++) {
      const [a, b] = [hex(colours[i]!), hex(colours[j]!)].map((c) => lab(m ? simulate(c, m) : c)) as [
        Rgb,
        Rgb,
      ];
      const de = deltaE2000(a, b);
      if (de < best.de) best = { de, pair: `${colours[i]}/${colours[j]}` };
    }
  return best;
}

describe('run palette', () => {
  test('ΔE2000 reference pair (Sharma et al. 2005, pair 1) checks the formula', () => {
    expect(deltaE2000([50, 2.6772, -79.7751], [50, 0, -82.7485])).toBeCloseTo(2.0425, 4);
  });

  test.each(['deuteranopia', 'protanopia'] as const)(
    'every pair of run colours is at least ΔE2000 10 apart under %s',
    (kind) => {
      const { de, pair } = minPairwise(PALETTE, CVD[kind]);
      expect(de, pair).toBeGreaterThanOrEqual(10);
    },
  );

  test('with normal vision too', () => {
    expect(minPairwise(PALETTE, null).de).toBeGreaterThanOrEqual(15);
  });

  test('beyond three runs lines are dashed, and no two of the first 16 runs share colour and dash', () => {
    expect([0, 1, 2].map(runDash)).toEqual([[], [], []]);
    for (let i = 3; i < 16; i++) expect(runDash(i).length, `run ${i}`).toBeGreaterThan(0);
    const looks = Array.from({ length: 16 }, (_, i) => `${runColor(i)} ${runDash(i).join(',')}`);
    expect(new Set(looks).size).toBe(16);
  });
});
