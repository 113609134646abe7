// The layer boundaries are lint errors: core/shared never import electron, renderer/shared no Node.

import { ESLint } from 'eslint';
import { describe, expect, test } from 'vitest';

const eslint = new ESLint({ cwd: import.meta.dirname + '/..' });

async function ruleIds(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('layer boundaries', () => {
  test.each([
    ["import { app } from 'electron';\nexport const a = app;\n", 'src/core/x.ts'],
    ["import { app } from 'electron';\nexport const a = app;\n", 'src/shared/x.ts'],
    ["import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n", 'src/shared/x.ts'],
    ["import { readFileSync } from 'fs';\nexport const r = readFileSync;\n", 'src/renderer/src/x.ts'],
    [
      "import { Workspace } from '../../core/workspace/workspace';\nexport const w = Workspace;\n",
      'src/renderer/src/x.ts',
    ],
    [
      '<script lang="ts">\n  import { readFileSync } from \'node:fs\';\n  const r: unknown = readFileSync;\n</script>\n<p>{String(r)}</p>\n',
      'src/renderer/src/X.svelte',
    ],
    [
      '<script lang="ts">\n  import { Workspace } from \'../../core/workspace/workspace\';\n  const w: unknown = Workspace;\n</script>\n<p>{String(w)}</p>\n',
      'src/renderer/src/X.svelte',
    ],
  ])('%s in %s is an error', async (code, file) => {
    expect(await ruleIds(code, file)).toContain('no-restricted-imports');
  });

  test('allowed imports pass', async () => {
    expect(
      await ruleIds(
        "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
        'src/core/x.ts',
      ),
    ).toEqual([]);
    expect(
      await ruleIds("import { app } from 'electron';\nexport const a = app;\n", 'src/main/x.ts'),
    ).toEqual([]);
  });
});
