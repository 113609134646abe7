// The lint rule that refuses import circles: a circle of two or three modules is reported with its path, a chain is not.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Linter } from 'eslint';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain ESM module of the lint folder, without types
import { noCyclesPlugin } from '../../lint/no-cycles.mjs';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Writes `files` (name → text) under a fresh src/ and lints `name` with the rule alone. */
function lint(files: Record<string, string>, name: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-cycles-'));
  dirs.push(dir);
  const src = join(dir, 'src');
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(src, file, '..'), { recursive: true });
    writeFileSync(join(src, file), text);
  }
  const linter = new Linter({ configType: 'flat', cwd: dir });
  const messages = linter.verify(
    files[name] ?? '',
    [
      {
        files: ['**/*.js'],
        plugins: { c: noCyclesPlugin({ src }) },
        rules: { 'c/no-import-cycles': 'error' },
      },
    ],
    { filename: join(src, name) },
  );
  return messages.map((m) => m.message);
}

describe('rlwatch-cycles/no-import-cycles', () => {
  it('reports both imports of a two-module circle, naming the path', () => {
    const files = {
      'shared/a.js': "import { b } from './b.js';\nexport const a = 1;\n",
      'shared/b.js': "import { a } from './a';\nexport const b = 2;\n",
    };
    expect(lint(files, 'shared/a.js')).toEqual([
      expect.stringContaining('import circle: shared/a.js → shared/b.js → shared/a.js'),
    ]);
    expect(lint(files, 'shared/b.js')).toHaveLength(1);
  });

  it('follows re-exports and folders across three modules', () => {
    const files = {
      'core/x.js': "export * from './y';\n",
      'core/y.js': "export { z } from '../core/deep/z.js';\n",
      'core/deep/z.js': "import { x } from '../x.js';\nexport const z = x;\n",
    };
    expect(lint(files, 'core/x.js')[0]).toContain('core/x.js → core/y.js → core/deep/z.js → core/x.js');
  });

  it('lets a chain, a diamond and package imports pass', () => {
    const files = {
      'a.js':
        "import { b } from './b';\nimport { c } from './c';\nimport fs from 'node:fs';\nexport const a = [b, c, fs];\n",
      'b.js': "import { d } from './d';\nexport const b = d;\n",
      'c.js': "import { d } from './d';\nexport const c = d;\n",
      'd.js': 'export const d = 4;\n',
    };
    expect(lint(files, 'a.js')).toEqual([]);
    expect(lint(files, 'b.js')).toEqual([]);
  });
});
