// electron-vite build: main (ESM, also bundles the rlwatch CLI), preload (CommonJS for the sandbox), renderer.

import { resolve } from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { precompressFolder } from './src/core/server/precompress';

/** After the renderer is written: each text file's brotli and gzip copies beside it, sent as they are by serve (#36). */
function precompress(): Plugin {
  return {
    name: 'rlwatch-precompress',
    apply: 'build',
    async writeBundle(options) {
      if (options.dir) await precompressFolder(options.dir);
    },
  };
}

export default defineConfig({
  main: {
    build: {
      // Pure-JS dependencies are bundled in: resolving and loading their files one by one (zod alone is 71
      // modules) cost `rlwatch serve` ≈ 0.2 s before its URL (#36). Native, lazily loaded and large
      // Node-side-only packages (better-sqlite3, @napi-rs/canvas, systeminformation, prom-client, …) stay in node_modules.
      externalizeDeps: { exclude: ['zod', 're2js', 'chokidar', 'ws'] },
      rollupOptions: {
        input: {
          index: resolve('src/main/index.ts'),
          cli: resolve('src/cli/index.ts'),
          // The event-file read pool's worker thread (core/tfevents/read-pool.ts finds it beside out/main).
          'read-worker': resolve('src/core/tfevents/read-worker.ts'),
        },
        output: { format: 'es', entryFileNames: '[name].js' },
      },
    },
  },
  preload: {
    build: {
      rollupOptions: {
        input: { index: resolve('src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve('src/renderer'),
    plugins: [svelte({ configFile: resolve('svelte.config.js') }), precompress()],
    build: {
      // The page is served over SSH tunnels too (`rlwatch serve`): minified, it is a third of the bytes.
      minify: true,
      rollupOptions: { input: { index: resolve('src/renderer/index.html') } },
    },
  },
});
