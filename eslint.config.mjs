// ESLint flat config: typescript-eslint rules plus the layer boundaries as errors.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import svelte from 'eslint-plugin-svelte';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const noNode = nodeBuiltins.map((name) => ({
  name,
  message: 'This layer runs in the browser: no Node built-ins.',
}));
const noElectron = [{ name: 'electron', message: 'core/shared are pure Node/TS: never import electron.' }];

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
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: noElectron,
          patterns: [
            {
              group: ['**/main/**', '**/renderer/**', '**/preload/**'],
              message: 'core never imports app layers.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...noElectron, ...noNode],
          patterns: [
            {
              group: ['**/core/**', '**/main/**', '**/renderer/**', '**/preload/**'],
              message: 'shared imports nothing of the app.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/renderer/**/*.ts', 'src/renderer/**/*.svelte', 'src/renderer/**/*.svelte.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...noNode,
            { name: 'electron', message: 'The renderer talks to a Backend, never to electron.' },
          ],
          patterns: [
            {
              group: ['**/core/**', '**/main/**', '**/cli/**'],
              message: 'The renderer never imports core/main/cli.',
            },
          ],
        },
      ],
    },
  },
);
