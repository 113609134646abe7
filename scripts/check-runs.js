// `npm run check:runs -- DIR [DIR…]`: builds the app if stale, then runs the render check (test/e2e/render-check) on the folders.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { buildIfStale, root } from './lib/build.js';

if (buildIfStale() !== 0) process.exit(1);
const r = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
    join(root, 'test', 'e2e', 'render-check', 'main.ts'),
    ...process.argv.slice(2),
  ],
  { cwd: process.cwd(), stdio: 'inherit' },
);
process.exit(r.status ?? 1);
