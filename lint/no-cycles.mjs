// ESLint rule `rlwatch/no-import-cycles`: no module under src/ may reach itself through its relative imports.

import { readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

// Every relative specifier in a module's text: `import … from './x'`, `export … from './x'`, `import './x'`,
// `import('./x')`. Type-only imports count too: a circle of types is still two modules that cannot be read apart.
const RELATIVE_IMPORT =
  /(?:\b(?:import|export)\b[^'";]*?\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
const EXTENSIONS = ['', '.ts', '.svelte.ts', '.js', '.mjs', '.svelte', '/index.ts', '/index.js'];

/** @type {Map<string, { mtimeMs: number; imports: string[] }>} */
const importsCache = new Map();

/** The file a relative specifier names, or null when none is on disk. */
function resolveImport(/** @type {string} */ fromFile, /** @type {string} */ spec) {
  const base = resolve(dirname(fromFile), spec.replace(/\.js$/, ''));
  for (const extension of EXTENSIONS) {
    const candidate = base + extension;
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not this extension.
    }
  }
  return null;
}

/** The files a module imports by relative path, read from disk (cached by modification time). */
function importsOf(/** @type {string} */ file) {
  let mtimeMs;
  try {
    mtimeMs = statSync(file).mtimeMs;
  } catch {
    return [];
  }
  const cached = importsCache.get(file);
  if (cached && cached.mtimeMs === mtimeMs) return cached.imports;
  const text = readFileSync(file, 'utf8');
  const imports = [];
  for (const match of text.matchAll(RELATIVE_IMPORT)) {
    const target = resolveImport(file, match[1]);
    if (target !== null) imports.push(target);
  }
  importsCache.set(file, { mtimeMs, imports });
  return imports;
}

/** A path of imports from `start` back to `goal` (both ends included), or null when there is none. */
export function pathBack(/** @type {string} */ start, /** @type {string} */ goal) {
  const seen = new Set([start]);
  /** @type {{ file: string; path: string[] }[]} */
  const queue = [{ file: start, path: [start] }];
  while (queue.length > 0) {
    const { file, path } = /** @type {{ file: string; path: string[] }} */ (queue.shift());
    for (const next of importsOf(file)) {
      if (next === goal) return [...path, goal];
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push({ file: next, path: [...path, next] });
    }
  }
  return null;
}

/** The plugin: `src` the absolute path of src/, used to name files in messages. */
export function noCyclesPlugin(/** @type {{ src: string }} */ options) {
  const name = (/** @type {string} */ file) => relative(options.src, file).split('\\').join('/');
  return {
    rules: {
      'no-import-cycles': {
        meta: {
          type: 'problem',
          docs: { description: 'refuse an import that leads back to the importing module' },
          schema: [],
        },
        create(/** @type {import('eslint').Rule.RuleContext} */ context) {
          const file = context.filename;
          /** @param {any} node */
          const check = (node) => {
            const spec = node.source?.value;
            if (typeof spec !== 'string' || !spec.startsWith('.')) return;
            const target = resolveImport(file, spec);
            if (target === null || target === file) return;
            const path = pathBack(target, file);
            if (path === null) return;
            context.report({
              node: node.source,
              message: `import circle: ${[file, ...path].map(name).join(' → ')}; move what both need into a third module`,
            });
          };
          return {
            ImportDeclaration: check,
            ExportNamedDeclaration: check,
            ExportAllDeclaration: check,
            ImportExpression: check,
          };
        },
      },
    },
  };
}
