// `npm run bench [name]`: runs every bench/*.bench.ts (or those whose name contains the argument) and prints their figures.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildIfStale, root } from './lib/build.js';

const filter = process.argv[2] ?? '';
const benches = readdirSync(join(root, 'bench')).filter((f) => f.endsWith('.bench.ts') && f.includes(filter)).sort();
// The watch-latency bench drives the built CLI.
if (benches.some((b) => b.startsWith('watch')) && buildIfStale() !== 0) process.exit(1);
let failed = 0;
for (const b of benches) {
  process.stdout.write(`\n### ${b}\n`);
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join('bench', b)], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
