// Window export benchmark: export.figure through dispatch on a 100k-step run held by AppCore (PNG 1×/2×, SVG), and export.run.
// Run: npx tsx bench/window-export.bench.ts [--steps N]

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dispatch } from '../src/core/api/dispatch';
import { AppCore } from '../src/core/app/app-core';
import { createHandlers } from '../src/core/app/handlers';
import { openStore } from '../src/core/store';
import { EventFileWriter } from '../src/core/tfevents/writer';
import type { RequestArgs } from '../src/shared/contract';

const arg = process.argv.indexOf('--steps');
const STEPS = arg > 0 ? Number(process.argv[arg + 1]) : 100_000;
const TAGS = ['approx_kl', 'entropy', 'loss', 'reward'];

const tmp = mkdtempSync(join(tmpdir(), 'rlwatch-bench-winexport-'));
const runDir = join(tmp, 'runs', 'run1');
mkdirSync(runDir, { recursive: true });
const w = new EventFileWriter(runDir, { wallTime: 1_700_000_000 });
for (let i = 0; i < STEPS; i++)
  w.scalars(
    i,
    TAGS.map((tag, k) => ({ tag, value: Math.fround(0.01 * (k + 1) + 0.005 * Math.sin(i * 0.01 + k)) })),
    'simple',
    1_700_000_000 + i * 0.1,
  );
w.close();

const core = new AppCore({
  host: { mode: 'serve', version: 'bench', allowOpenFolder: true },
  store: openStore({ path: null }),
});
const h = createHandlers(core);
await core.open(join(tmp, 'runs'));

const args = (over: Partial<RequestArgs['export.figure']>): RequestArgs['export.figure'] => ({
  runs: ['run1'],
  tag: 'approx_kl',
  view: { xAxis: 'step', logY: false, smoothing: 0.6, ignoreOutliers: false },
  theme: 'light',
  format: 'png',
  width: 1600,
  height: 900,
  scale: 1,
  ...over,
});

async function time(label: string, over: Partial<RequestArgs['export.figure']>): Promise<void> {
  for (let k = 0; k < 2; k++) await dispatch(h, 'export.figure', args(over)); // warm-up
  const runs = 5;
  let bytes = 0;
  const t = process.hrtime.bigint();
  for (let k = 0; k < runs; k++) {
    const r = await dispatch(h, 'export.figure', args(over));
    if (!r.ok) throw new Error(r.error.message);
    bytes = (r.value as { bytes: Uint8Array }).bytes.length;
  }
  const ms = Number(process.hrtime.bigint() - t) / 1e6 / runs;
  console.log(
    `${label.padEnd(34)} ${ms.toFixed(1).padStart(7)} ms  ${(bytes / 1024).toFixed(0).padStart(6)} KiB`,
  );
}

console.log(`window export: ${STEPS.toLocaleString()} steps × ${TAGS.length} tags, held by AppCore`);
await time('PNG 1600×900 @1×', {});
await time('PNG 1600×900 @2×', { scale: 2 });
await time('PNG 1600×900 @1×, no smoothing', { view: { ...args({}).view, smoothing: 0 } });
await time('SVG 1600×900', { format: 'svg' });
await time('PNG 960×540 @2×, zoomed 10%', {
  width: 960,
  height: 540,
  scale: 2,
  view: { ...args({}).view, xRange: { min: STEPS * 0.45, max: STEPS * 0.55 } },
});
const t = process.hrtime.bigint();
const finished = new Promise<void>((resolve, reject) =>
  core.bus.on('export.progress', (p) => {
    if (p.kind === 'finished') resolve();
    if (p.kind === 'failed') reject(new Error(p.error.message));
  }),
);
const r = await dispatch(h, 'export.run', { runs: ['run1'], folder: join(tmp, 'out') });
if (!r.ok) throw new Error(r.error.message);
const answeredMs = Number(process.hrtime.bigint() - t) / 1e6;
await finished;
const totalMs = Number(process.hrtime.bigint() - t) / 1e6;
console.log(
  `${'export.run (CSV long+wide, JSON)'.padEnd(34)} answered in ${answeredMs.toFixed(0)} ms, done in ${totalMs.toFixed(0)} ms`,
);
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
await core.dispose();
rmSync(tmp, { recursive: true, force: true });
