#!/usr/bin/env node
// The installed `rlwatch` command: runs the CLI bundled by `electron-vite build` (out/main/cli.js).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write(
    "rlwatch: the app is not built yet: run 'npm run build:app' (or 'npm start') in the rlwatch folder first\n",
  );
  process.exit(2);
}
await import(cli);
