// ESLint flat config: typescript-eslint and svelte rules, and the layering table (rlwatch/layers) as errors.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import svelte from 'eslint-plugin-svelte';
import { join } from 'node:path';
import { layersPlugin } from './lint/layers.mjs';
import { noCyclesPlugin } from './lint/no-cycles.mjs';
import { strayScriptsPlugin } from './lint/stray-scripts.mjs';

/** The scripts that belong at the repository root: the tools' configuration files. */
const ROOT_SCRIPTS = ['electron.vite.config.ts', 'eslint.config.mjs', 'svelte.config.js', 'vitest.config.ts'];

// The layering table. Runtimes are the top folders of src/: what of the app each may import (besides
// itself), its npm packages, whether Node's built-ins exist there, and modules it may import only as types
// (shared/contract holds the zod schemas: the renderer and the preload never bundle zod).
const RUNTIMES = {
  // shared/charts is the one chart definition (dashboard and headless export): it takes chart.js's types only.
  shared: { imports: [], packages: ['zod', 're2js'], typePackages: ['chart.js'], node: false },
  core: {
    imports: ['shared'],
    packages: [
      '@napi-rs/canvas',
      'better-sqlite3',
      'chart.js',
      'chokidar',
      'csv-parse',
      'node-nvidia-smi',
      'prom-client',
      'systeminformation',
      'ws',
      'yaml',
    ],
    node: true,
  },
  cli: { imports: ['core', 'shared'], packages: [], node: true },
  main: { imports: ['core', 'shared'], packages: ['electron'], node: true },
  preload: { imports: ['shared'], packages: ['electron'], node: false, typesOnly: ['shared/contract'] },
  renderer: {
    imports: ['shared'],
    packages: ['svelte', 'chart.js', 'chartjs-plugin-zoom', 're2js'],
    node: false,
    typesOnly: ['shared/contract'],
  },
};

// The order inside src/core, lowest line first: a part imports only parts on lower lines (and itself), never
// a part on its own line. A part is a folder or a file (no extension) under src/core; a file belongs to the
// longest part holding it, so adding or moving a folder is one word on one line.
const CORE_ORDER = [
  ['series', 'system', 'store', 'api', 'heap-flags'], // heap-flags: the long-lived processes' V8 settings, loaded first
  ['readers'], // the readers' shared base: reader, appended-file loop, cursor, framer, rows, values, proto
  ['sqlite-db', 'samples'], // sqlite-db: the tracker databases' read-only connection and run reader base; samples: sample tables (the bounded store, completions JSONL, W&B table files, the text adapter)
  ['text-formats', 'tfevents', 'wandb', 'mlflow', 'trackio'], // the formats
  ['sources', 'demo'], // sources: the one format registry and the sniffer
  ['discovery'],
  ['workspace', 'inspect'],
  ['health'],
  ['alerts'],
  ['export'], // reads runs whole through inspect's reader, draws with shared/charts; writes outside them
  ['remote', 'jobs'], // remote: links to other rlwatch endpoints (shared + ws only); jobs: cross-node grouping and rules (shared only)
  ['app', 'watch'],
  ['metrics'], // the Prometheus exposition of an AppCore's state
  ['server'],
];

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'dist/**', 'coverage/**', 'test/fixtures/**', 'bench/.data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  { files: ['**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  // Svelte components: the plugin's recommended rules, <script lang="ts"> parsed by typescript-eslint.
  ...svelte.configs.recommended,
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] } },
    rules: {
      // State here is replaced, never mutated (`pinned = new Set(...)`); local Sets/Maps are scratch values.
      'svelte/prefer-svelte-reactivity': 'off',
      // `{' '}` keeps a space that prettier-plugin-svelte would otherwise move across a line break.
      'svelte/no-useless-mustaches': 'off',
    },
  },
  {
    files: ['src/**/*.{ts,mts,cts,js,mjs,cjs,svelte}'],
    plugins: {
      rlwatch: layersPlugin({
        src: join(import.meta.dirname, 'src'),
        runtimes: RUNTIMES,
        coreOrder: CORE_ORDER,
      }),
    },
    rules: { 'rlwatch/layers': 'error' },
  },
  {
    files: ['src/**/*.{ts,mts,cts,js,mjs,cjs,svelte}'],
    plugins: { 'rlwatch-cycles': noCyclesPlugin({ src: join(import.meta.dirname, 'src') }) },
    rules: { 'rlwatch-cycles/no-import-cycles': 'error' },
  },
  {
    // Only the files directly at the root: `*` does not cross a folder.
    files: ['*.{ts,mts,cts,js,mjs,cjs}'],
    plugins: { 'rlwatch-root': strayScriptsPlugin({ allowed: ROOT_SCRIPTS }) },
    rules: { 'rlwatch-root/no-stray-scripts': 'error' },
  },
  { files: ['src/shared/**/*.ts'], languageOptions: { globals: {} } },
  {
    files: ['src/renderer/**/*.ts', 'src/renderer/**/*.svelte', 'src/renderer/**/*.svelte.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
