// SQLite store benchmark: batched inserts/s (system samples, alerts) and open time of a 1M-sample database.
// Run: npx tsx bench/store.bench.ts [--samples N]

import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '../src/core/store';
import type { AlertInput, SystemSample } from '../src/core/store';

const arg = process.argv.indexOf('--samples');
const SAMPLES = arg > 0 ? Number(process.argv[arg + 1]) : 1_000_000;
const BATCH = 1000;
const DATA = fileURLToPath(new URL('.data/store', import.meta.url));
rmSync(DATA, { recursive: true, force: true });
mkdirSync(DATA, { recursive: true });
const path = join(DATA, 'rlwatch.db');
const T0 = 1_700_000_000_000;

/** Roughly what the sampler writes at 1 Hz: host figures plus two GPUs. */
const snapshot = (i: number) => ({
  cpuPct: (i * 7) % 100,
  memPct: 40 + (i % 20),
  gpus: [0, 1].map((index) => ({
    index,
    name: 'NVIDIA H100 80GB HBM3',
    utilizationPct: (i + index * 13) % 100,
    memoryUsedMiB: 40_000 + (i % 1000),
    memoryTotalMiB: 81_559,
    temperatureC: 60 + (i % 15),
    powerDrawW: 350.5,
  })),
});

const ms = (t: bigint) => Number(process.hrtime.bigint() - t) / 1e6;

{
  const store = openStore({ path });
  if (!store.status.persistent) throw new Error(`store not persistent: ${store.status.reason}`);
  let t = process.hrtime.bigint();
  for (let i = 0; i < SAMPLES; i += BATCH) {
    const batch: SystemSample[] = [];
    for (let k = i; k < Math.min(SAMPLES, i + BATCH); k++)
      batch.push({ t: T0 + k * 1000, snapshot: snapshot(k) });
    store.appendSystemSamples(batch);
  }
  let el = ms(t);
  console.log(
    `system samples: ${SAMPLES.toLocaleString()} in batches of ${BATCH}: ${el.toFixed(0)} ms, ` +
      `${Math.round(SAMPLES / (el / 1000)).toLocaleString()} inserts/s`,
  );

  t = process.hrtime.bigint();
  const single = 2000;
  for (let i = 0; i < single; i++)
    store.appendSystemSamples([{ t: T0 + (SAMPLES + i) * 1000, snapshot: snapshot(i) }]);
  el = ms(t);
  console.log(
    `system samples, one per transaction (the 1 Hz path): ${Math.round(single / (el / 1000)).toLocaleString()} inserts/s`,
  );

  const ALERTS = 100_000;
  const alert = (i: number): AlertInput => ({
    run: `/runs/run_${i % 100}`,
    rule: 'loss-spike',
    tag: 'train/loss',
    severity: i % 10 ? 'warning' : 'critical',
    state: i % 2 ? 'cleared' : 'raised',
    step: i * 10,
    value: i % 50 ? i * 0.001 : Number.NaN,
    message: 'loss jumped 8σ above its running mean',
    at: T0 + i * 1000,
  });
  t = process.hrtime.bigint();
  for (let i = 0; i < ALERTS; i += BATCH)
    store.recordAlerts(Array.from({ length: BATCH }, (_, k) => alert(i + k)));
  el = ms(t);
  console.log(
    `alerts: ${ALERTS.toLocaleString()} in batches of ${BATCH}: ${Math.round(ALERTS / (el / 1000)).toLocaleString()} inserts/s`,
  );

  t = process.hrtime.bigint();
  const hour = store.systemSamples(T0 + (SAMPLES - 3600) * 1000);
  console.log(`read last hour of samples (${hour.length} rows, JSON parsed): ${ms(t).toFixed(1)} ms`);
  t = process.hrtime.bigint();
  const hist = store.alertHistory('/runs/run_7');
  console.log(`alert history of one run (${hist.length} rows): ${ms(t).toFixed(1)} ms`);
  store.close();
}

const size = statSync(path).size;
console.log(`database file: ${(size / 2 ** 20).toFixed(0)} MiB`);

for (const integrityCheck of ['auto', 'quick', 'none'] as const) {
  const times: number[] = [];
  for (let k = 0; k < 3; k++) {
    const t = process.hrtime.bigint();
    const s = openStore({ path, integrityCheck });
    s.recentRuns();
    times.push(ms(t));
    s.close();
  }
  console.log(
    `open ${SAMPLES.toLocaleString()}-sample DB (integrityCheck '${integrityCheck}'): ` +
      `${times.map((x) => x.toFixed(1)).join(' / ')} ms (cold-ish / warm / warm)`,
  );
}

{
  const s = openStore({ path });
  const t = process.hrtime.bigint();
  const r = s.prune(T0 + SAMPLES * 1000, { systemSampleMaxRows: SAMPLES / 2 });
  console.log(
    `prune to ${(SAMPLES / 2).toLocaleString()} rows: ${r.systemSamples.toLocaleString()} deleted in ${ms(t).toFixed(0)} ms`,
  );
  s.close();
}
rmSync(DATA, { recursive: true, force: true });
