// `npm run bench [name]`: runs every bench/*.bench.ts (or those whose name contains the argument) and prints their figures.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildIfStale, root } from './lib/build.js';

const filter = process.argv[2] ?? '';
// Benches that take too long for a plain run: only when the argument names them (`npm run bench soak`).
const explicitOnly = ['soak'];
const matching = readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts') && f.includes(filter))
  .sort();
const skipped = matching.filter((b) =>
  explicitOnly.some((name) => b.startsWith(name) && !filter.includes(name)),
);
const benches = matching.filter((b) => !skipped.includes(b));
// The watch-latency, metrics and serve-soak benches drive the built CLI.
const needsBuild = ['watch', 'metrics', 'soak-serve'];
if (benches.some((b) => needsBuild.some((n) => b.startsWith(n))) && buildIfStale() !== 0) process.exit(1);
let failed = 0;
for (const b of benches) {
  process.stdout.write(`\n### ${b}\n`);
  // --expose-gc: the memory benches measure RSS after a forced collection.
  const r = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), '--expose-gc', join('bench', b)],
    { cwd: root, stdio: 'inherit' },
  );
  if (r.status !== 0) failed++;
}
for (const b of skipped) {
  const name = b.replace(/\.bench\.ts$/, '');
  process.stdout.write(`\n### ${b}: skipped (long-running; run it with \`npm run bench ${name}\`)\n`);
}
process.exit(failed ? 1 : 0);
