// The README's committed figures are what `npm run readme-figures` makes: the same files at the same sizes.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, test } from 'vitest';

interface ReadmeFiguresScript {
  FIGURES_DIR: string;
  FIGURE_SIZE: { width: number; height: number };
  renderReadmeFigures(out?: string): string[];
  pngsUnder(dir: string): string[];
}
const script = join(import.meta.dirname, '..', '..', 'scripts', 'readme-figures.js');
// Loaded by URL: the script is untyped JS; the interface says what this test relies on.
const load = (): Promise<ReadmeFiguresScript> =>
  import(pathToFileURL(script).href) as Promise<ReadmeFiguresScript>;

const out = mkdtempSync(join(tmpdir(), 'rlwatch-readme-figures-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
function pngSize(file: string): [number, number] {
  const b = readFileSync(file);
  expect(b.readUInt32BE(0)).toBe(0x89504e47);
  expect(b.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
}

test('the committed README figures are the files the script renders, at the size it renders them', async () => {
  const { FIGURES_DIR, FIGURE_SIZE, renderReadmeFigures, pngsUnder } = await load();
  const made = renderReadmeFigures(out)
    .map((f) => relative(out, f))
    .sort();
  const committed = pngsUnder(FIGURES_DIR)
    .map((f) => relative(FIGURES_DIR, f))
    .sort();
  expect(made.length).toBeGreaterThanOrEqual(6);
  expect(made).toContain(join('demo', 'ppo_demo', 'training_progress.png'));
  expect(committed).toEqual(made);
  for (const f of made) {
    expect(pngSize(join(out, f)), f).toEqual([FIGURE_SIZE.width, FIGURE_SIZE.height]);
    expect(pngSize(join(FIGURES_DIR, f)), f).toEqual([FIGURE_SIZE.width, FIGURE_SIZE.height]);
  }
});
