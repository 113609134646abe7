// The built page's first script: only what the first screen needs (the regex engine and off-screen views load later), and every text file's brotli and gzip copies beside it (#36).

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { expect, test } from 'vitest';

const RENDERER = join(import.meta.dirname, '..', '..', 'out', 'renderer');
const ASSETS = join(RENDERER, 'assets');
/** Loaded on first use, each a script of its own. */
const LAZY = [
  'user-regex',
  'RunsTable',
  'SamplesView',
  'ComposeDialog',
  'SnapshotDialog',
  'ServeFolderDialog',
];

/** The scripts a module imports statically (`import … from "./x.js"`, `import "./x.js"`), not `import("./x.js")`. */
function staticImports(code: string): string[] {
  return [...code.matchAll(/\bimport(?:[^"'()]*?\bfrom)?\s*["']\.\/([^"']+\.js)["']/g)].map((m) => m[1]!);
}

test('the first script and what it imports statically hold neither the regex engine nor the views off the first screen', () => {
  const html = readFileSync(join(RENDERER, 'index.html'), 'utf8');
  const entry = /<script type="module"[^>]*src="\.\/assets\/([^"]+\.js)"/.exec(html)?.[1];
  expect(entry).toBeDefined();
  const first = new Set<string>();
  const visit = (file: string): void => {
    if (first.has(file)) return;
    first.add(file);
    staticImports(readFileSync(join(ASSETS, file), 'utf8')).forEach(visit);
  };
  visit(entry!);
  const assets = readdirSync(ASSETS);
  for (const name of LAZY) {
    const chunk = assets.find((f) => f.startsWith(`${name}-`) && f.endsWith('.js'));
    expect(chunk, `${name} is a script of its own`).toBeDefined();
    expect(first.has(chunk!), `${name} is not loaded with the first screen`).toBe(false);
  }
  for (const file of first) expect(readFileSync(join(ASSETS, file), 'utf8')).not.toContain('translateRegExp');
});

test('every script, style and the page have brotli and gzip copies beside them that decode to the file', () => {
  const files = [
    join(RENDERER, 'index.html'),
    ...readdirSync(ASSETS)
      .filter((f) => /\.(js|css)$/.test(f))
      .map((f) => join(ASSETS, f)),
  ];
  for (const file of files) {
    const body = readFileSync(file);
    expect(existsSync(`${file}.br`), `${file}.br`).toBe(true);
    expect(brotliDecompressSync(readFileSync(`${file}.br`)).equals(body), `${file}.br`).toBe(true);
    expect(gunzipSync(readFileSync(`${file}.gz`)).equals(body), `${file}.gz`).toBe(true);
  }
});
