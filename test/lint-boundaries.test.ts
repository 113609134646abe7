// The layering table (eslint.config.mjs) as lint errors: runtimes, their npm packages, and the order inside core.

import { ESLint } from 'eslint';
import { describe, expect, test } from 'vitest';

const eslint = new ESLint({ cwd: import.meta.dirname + '/..' });

/** The lint messages of a file importing `spec` (a svelte component when `file` ends in .svelte). */
async function messages(spec: string, file: string, how: 'import' | 'export' | 'dynamic' = 'import') {
  const statement = {
    import: `import * as m from '${spec}';\nexport const used: unknown = m;\n`,
    export: `export * from '${spec}';\n`,
    dynamic: `export const later = import('${spec}');\n`,
  }[how];
  const code = file.endsWith('.svelte')
    ? `<script lang="ts">\n  import * as m from '${spec}';\n  const used: unknown = m;\n</script>\n<p>{String(used)}</p>\n`
    : statement;
  const [result] = await eslint.lintText(code, { filePath: file });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}

const refused = (why: RegExp) =>
  expect.arrayContaining([expect.stringMatching(new RegExp(`^rlwatch/layers: .*${why.source}`))]);

describe('runtimes: what of the app each may import', () => {
  test.each([
    ['shared', '../core/app/bus', 'src/shared/x.ts'],
    ['shared', '../renderer/src/lib/tags', 'src/shared/x.ts'],
    ['core', '../../main/tray', 'src/core/app/x.ts'],
    ['core', '../../cli/usage', 'src/core/app/x.ts'],
    ['core', '../../preload/index', 'src/core/app/x.ts'],
    ['cli', '../main/ipc', 'src/cli/x.ts'],
    ['main', '../cli/usage', 'src/main/x.ts'],
    ['main', '../renderer/src/lib/tags', 'src/main/x.ts'],
    ['preload', '../core/app/bus', 'src/preload/x.ts'],
    ['preload', '../main/ipc', 'src/preload/x.ts'],
    ['renderer', '../../core/workspace/workspace', 'src/renderer/src/x.ts'],
    ['renderer', '../../core/workspace/workspace', 'src/renderer/src/X.svelte'],
    ['renderer', '../../main/ipc', 'src/renderer/src/x.ts'],
  ])('%s may not import %s', async (runtime, spec, file) => {
    expect(await messages(spec, file)).toEqual(
      refused(new RegExp(`${runtime} may import .* besides itself`)),
    );
  });

  test.each([
    ['../../shared/result', 'src/core/app/x.ts'],
    ['../core/app/app-core', 'src/cli/x.ts'],
    ['../shared/result', 'src/cli/x.ts'],
    ['../core/app/handlers', 'src/main/x.ts'],
    ['../shared/channels', 'src/preload/x.ts'],
    ['../../shared/format', 'src/renderer/src/x.ts'],
    ['../../shared/format', 'src/renderer/src/X.svelte'],
  ])('%s from %s is allowed', async (spec, file) => {
    expect(await messages(spec, file)).toEqual([]);
  });

  test('the renderer and the preload take only types from shared/contract (its zod schemas stay out)', async () => {
    const typeImport =
      "import type { Handlers } from '../../../shared/contract';\nexport type H = Handlers;\n";
    const [types] = await eslint.lintText(typeImport, { filePath: 'src/renderer/src/lib/x.ts' });
    expect(types?.messages).toEqual([]);
    expect(await messages('../../../shared/contract', 'src/renderer/src/lib/x.ts')).toEqual(
      refused(/only types from shared\/contract/),
    );
    expect(await messages('../shared/contract', 'src/preload/x.ts', 'export')).toEqual(
      refused(/only types from shared\/contract/),
    );
    expect(await messages('../shared/contract', 'src/main/x.ts')).toEqual([]);
  });

  test('shared takes only types from chart.js (the one chart definition draws nothing itself)', async () => {
    const typeImport = "import type { Chart } from 'chart.js';\nexport type C = Chart;\n";
    const [types] = await eslint.lintText(typeImport, { filePath: 'src/shared/charts/x.ts' });
    expect(types?.messages).toEqual([]);
    expect(await messages('chart.js', 'src/shared/charts/x.ts')).toEqual(
      refused(/only types from 'chart.js'/),
    );
  });

  test('a file outside every runtime, or an import leaving src/, is an error', async () => {
    expect(await messages('./shared/result', 'src/x.ts')).toEqual(refused(/in no runtime/));
    expect(await messages('../../../package.json', 'src/core/app/x.ts')).toEqual(refused(/outside src/));
  });
});

describe('npm packages and Node built-ins per runtime', () => {
  test.each([
    ['electron', 'src/shared/x.ts'],
    ['electron', 'src/core/app/x.ts'],
    ['svelte', 'src/core/app/x.ts'],
    ['ws', 'src/main/x.ts'],
    ['electron', 'src/cli/x.ts'],
    ['zod', 'src/preload/x.ts'],
    ['chokidar', 'src/preload/x.ts'],
    ['zod', 'src/renderer/src/x.ts'],
    ['zod', 'src/renderer/src/X.svelte'],
    ['electron', 'src/renderer/src/x.ts'],
    ['@scope/anything/deep', 'src/renderer/src/x.ts'],
  ])('%s in %s is an error', async (spec, file) => {
    expect(await messages(spec, file)).toEqual(refused(/is not an npm package .* may use/));
  });

  test.each([
    ['node:fs', 'src/shared/x.ts'],
    ['fs', 'src/preload/x.ts'],
    ['node:path', 'src/preload/x.ts'],
    ['fs/promises', 'src/renderer/src/x.ts'],
    ['node:fs', 'src/renderer/src/X.svelte'],
  ])('Node built-in %s in %s is an error', async (spec, file) => {
    expect(await messages(spec, file)).toEqual(refused(/runs without Node/));
  });

  test.each([
    ['zod', 'src/shared/x.ts'],
    ['node:fs', 'src/core/readers/x.ts'],
    ['csv-parse/sync', 'src/core/readers/x.ts'],
    ['better-sqlite3', 'src/core/store/x.ts'],
    ['ws', 'src/core/server/x.ts'],
    ['node:path', 'src/cli/x.ts'],
    ['electron', 'src/main/x.ts'],
    ['node:fs', 'src/main/x.ts'],
    ['electron', 'src/preload/x.ts'],
    ['svelte', 'src/renderer/src/X.svelte'],
    ['chart.js', 'src/renderer/src/x.ts'],
    ['chartjs-plugin-zoom/types/options', 'src/renderer/src/x.ts'],
    ['re2js', 'src/renderer/src/lib/x.ts'],
    ['re2js', 'src/shared/x.ts'],
  ])('%s in %s is allowed', async (spec, file) => {
    expect(await messages(spec, file)).toEqual([]);
  });
});

describe('the order inside core', () => {
  test.each([
    ['series', '../readers/types', 'src/core/series/x.ts'],
    ['readers', '../tfevents/writer', 'src/core/readers/x.ts'],
    ['readers', '../wandb/wandb-reader', 'src/core/readers/csv-reader.ts'],
    ['tfevents', '../wandb/records', 'src/core/tfevents/x.ts'],
    ['discovery', './workspace/workspace', 'src/core/discovery.ts'],
    ['workspace', '../health/engine', 'src/core/workspace/x.ts'],
    ['workspace', '../app/bus', 'src/core/workspace/x.ts'],
    ['health', '../alerts/x', 'src/core/health/x.ts'],
    ['health', '../app/bus', 'src/core/health/x.ts'],
    ['alerts', '../app/bus', 'src/core/alerts/x.ts'],
    ['readers', '../wandb/wandb-reader', 'src/core/readers/x.ts'],
    ['readers', '../sources/registry', 'src/core/readers/x.ts'],
    ['text-formats', '../tfevents/x', 'src/core/text-formats/x.ts'],
    ['alerts', '../watch/health-feed', 'src/core/alerts/x.ts'],
    ['app', '../watch/watch-session', 'src/core/app/x.ts'],
    ['app', '../server/serve', 'src/core/app/x.ts'],
    ['api', '../app/app-core', 'src/core/api/x.ts'],
  ])('core/%s may not import %s', async (part, spec, file) => {
    expect(await messages(spec, file)).toEqual(
      refused(new RegExp(`core/${part} may import only lower lines`)),
    );
  });

  test.each([
    ['../series/series-set', 'src/core/readers/x.ts'],
    ['../readers/types', 'src/core/tfevents/x.ts'],
    ['../wandb/wandb-reader', 'src/core/sources/registry.ts'],
    ['../text-formats/csv-reader', 'src/core/sources/registry.ts'],
    ['../readers', 'src/core/workspace/x.ts'],
    ['../readers/run-config', 'src/core/workspace/x.ts'],
    ['../health/engine', 'src/core/alerts/x.ts'],
    ['../store/types', 'src/core/alerts/x.ts'],
    ['../alerts/x', 'src/core/app/x.ts'],
    ['../alerts/x', 'src/core/watch/x.ts'],
    ['../app/app-core', 'src/core/server/x.ts'],
    ['./engine', 'src/core/health/x.ts'],
  ])('%s from %s is allowed', async (spec, file) => {
    expect(await messages(spec, file)).toEqual([]);
  });

  test('a core file in no line of the order is an error, importing or imported', async () => {
    expect(await messages('../../shared/result', 'src/core/newthing/x.ts')).toEqual(
      refused(/in no line of the core order/),
    );
    expect(await messages('../newthing/x', 'src/core/app/x.ts')).toEqual(
      refused(/in no line of the core order/),
    );
  });

  test('re-exports and dynamic imports are checked like imports', async () => {
    expect(await messages('../app/bus', 'src/core/health/x.ts', 'export')).toEqual(refused(/lower lines/));
    expect(await messages('../app/bus', 'src/core/health/x.ts', 'dynamic')).toEqual(refused(/lower lines/));
    expect(await messages('zod', 'src/renderer/src/x.ts', 'dynamic')).toEqual(refused(/npm package/));
  });
});

describe('the repository root holds no stray scripts', () => {
  test('a debug script at the root is a lint error; the config files and scripts/ are not', async () => {
    const lint = async (file: string) => {
      const [r] = await eslint.lintText('export const x = 1;\n', { filePath: file });
      return (r?.messages ?? []).map((m) => m.ruleId);
    };
    expect(await lint('dbg.tmp.ts')).toContain('rlwatch-root/no-stray-scripts');
    expect(await lint('scratch.mjs')).toContain('rlwatch-root/no-stray-scripts');
    expect(await lint('vitest.config.ts')).not.toContain('rlwatch-root/no-stray-scripts');
    expect(await lint('scripts/dbg.ts')).not.toContain('rlwatch-root/no-stray-scripts');
  });
});
