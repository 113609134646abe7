// `npm run bench [name]`: runs every bench/*.bench.ts (or those whose name contains the argument) and prints their figures.
// `npm run bench alerts [recording …]`: the alert benchmark (issue 20): score.py on every labelled recording
// (../shared/scenarios/recordings and bench/scenarios/recordings), or on the recordings named, under the built CLI.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildIfStale, root } from './lib/build.js';
import {
  allRecordings,
  missingPrerequisite,
  ownRecordings,
  runScorer,
  sharedRecordings,
} from './lib/alerts-scorer.js';

const filter = process.argv[2] ?? '';
if (filter === 'alerts') process.exit(await alertsBench(process.argv.slice(3)));
// Benches that take too long for a plain run: only when the argument names them (`npm run bench soak`; bulk-read
// writes 10 GiB). The memory cap's regression bench (a 500 M-point folder made on the fly, ≈ 7 GB) is part of a plain
// run, as #36 asks.
const explicitOnly = ['soak', 'job-faults', 'bulk-read', 'own-cost'];
const matching = readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts') && f.includes(filter))
  .sort();
const skipped = matching.filter((b) =>
  explicitOnly.some((name) => b.startsWith(name) && !filter.includes(name)),
);
const benches = matching.filter((b) => !skipped.includes(b));
// The watch-latency, metrics, serve-soak, reading, export-process, job-faults and own-cost benches drive the built CLI.
const needsBuild = ['watch', 'metrics', 'soak-serve', 'reading', 'export-process', 'job-faults', 'own-cost'];
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
if ('alerts'.includes(filter))
  process.stdout.write(
    '\n### alerts: skipped (replays recordings in real time, ~6 min; run it with `npm run bench alerts`)\n',
  );
process.exit(failed ? 1 : 0);

/**
 * The alert benchmark: exit status 0 when score.py ran and printed its summary (the figures are the result; the
 * pass/fail gate is the `alerts` test project), 1 when it could not run.
 */
async function alertsBench(args) {
  process.stdout.write('\n### alerts (score.py on labelled recordings, real-time replay)\n');
  const missing = missingPrerequisite();
  if (missing) {
    process.stderr.write(`${missing}\n`);
    return 1;
  }
  // A recording folder, a folder of recordings, or a recording id from either set.
  const recordings = args.length
    ? args.map((a) => {
        for (const p of [resolve(a), join(sharedRecordings, a), join(ownRecordings, a)])
          if (existsSync(p)) return p;
        process.stderr.write(`alerts benchmark: no recording ${a}\n`);
        process.exit(1);
      })
    : allRecordings();
  if (!recordings.length) {
    process.stderr.write(`alerts benchmark: no recordings in ${sharedRecordings} or ${ownRecordings}\n`);
    return 1;
  }
  if (buildIfStale() !== 0) return 1;
  const out = join(root, 'bench', '.data', 'alerts');
  process.stdout.write(`${recordings.length} recording(s); monitor output and score.json in ${out}\n`);
  const r = await runScorer({ recordings, out, echo: true });
  if (r.status !== 0 || !r.summary) {
    process.stderr.write(`alerts benchmark: score.py failed (exit ${r.status})\n`);
    return 1;
  }
  return 0;
}
