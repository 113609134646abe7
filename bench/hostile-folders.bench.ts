// Hostile folders opened with watching on (as `serve`/`watch` do): peak RSS and time to the first run for symlink loops, a link out to /usr and 10k tiny runs.
// Run: npm run bench hostile-folders   (env: RUNS for the many-runs case, default 10000; TIMEOUT_S, default 120)

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWorkspace } from '../src/core/workspace/create';
import { envNumber } from './lib/log-folder';

const RUNS = envNumber('RUNS', 10_000);
const TIMEOUT_S = envNumber('TIMEOUT_S', 120);
const TARGET_RSS_MB = 300;
const TARGET_FIRST_MS = 5000;

interface Figures {
  firstRunMs: number | null;
  loadedMs: number | null;
  peakRssMb: number;
  runs: number;
  watchedFolders: number;
  notices: number;
}

/** Child: opens one folder, waits for the first run and for everything, then idles 3 s with the watcher on. */
async function measure(dir: string): Promise<Figures> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const ws = createWorkspace({ watch: true });
  let notices = 0;
  ws.on('app.notice', () => notices++);
  const t0 = performance.now();
  const timeout = new Promise<'timeout'>((res) => setTimeout(() => res('timeout'), TIMEOUT_S * 1000).unref());
  const first = await Promise.race([ws.open(dir, { until: 'first-run' }).then(() => 'ok' as const), timeout]);
  const firstRunMs = first === 'ok' ? performance.now() - t0 : null;
  const all = await Promise.race([ws.whenLoaded().then(() => 'ok' as const), timeout]);
  const loadedMs = all === 'ok' ? performance.now() - t0 : null;
  // Watching costs after the load: chokidar's attach to folders runs on.
  await new Promise((r) => setTimeout(r, 3000));
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
  const figures: Figures = {
    firstRunMs,
    loadedMs,
    peakRssMb: peak / 2 ** 20,
    runs: ws.listRuns().length,
    watchedFolders: ws.watchedFolderCount(),
    notices,
  };
  await ws.close();
  return figures;
}

function makeCases(base: string): Array<{ name: string; dir: string }> {
  const csv = 'step,loss,reward\n0,1.0,0.1\n1,0.9,0.2\n2,0.8,0.3\n';
  const loops = join(base, 'loops');
  mkdirSync(loops);
  writeFileSync(join(loops, 'metrics.csv'), csv);
  for (const n of ['s1', 's2', 's3']) symlinkSync('.', join(loops, n));
  const usr = join(base, 'usr-link');
  mkdirSync(join(usr, 'run'), { recursive: true });
  writeFileSync(join(usr, 'run', 'metrics.csv'), csv);
  symlinkSync('/usr', join(usr, 'usr'));
  const many = join(base, 'many');
  for (let i = 0; i < RUNS; i++) {
    const d = join(many, `run-${String(i).padStart(5, '0')}`);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'metrics.csv'), csv);
  }
  return [
    { name: 'three `ln -s . sN` loops', dir: loops },
    { name: 'a link out to /usr', dir: usr },
    { name: `${RUNS.toLocaleString()} runs of tiny CSVs`, dir: many },
  ];
}

function main(): void {
  const self = fileURLToPath(import.meta.url);
  const base = mkdtempSync(join(tmpdir(), 'rlwatch-hostile-'));
  try {
    for (const c of makeCases(base)) {
      // One process per case: peak RSS is the process's own.
      const r = spawnSync(process.execPath, [...process.execArgv, self, c.dir], {
        encoding: 'utf8',
        timeout: (TIMEOUT_S + 30) * 1000,
        env: { ...process.env, RLWATCH_HOSTILE_CHILD: '1' },
      });
      const out = r.stdout.trim().split('\n').pop() ?? '';
      if (r.status !== 0 || !out.startsWith('{')) {
        console.log(
          `${c.name.padEnd(28)} FAILED (status ${r.status}, signal ${r.signal}) ${r.stderr.slice(-500)}`,
        );
        continue;
      }
      const f = JSON.parse(out) as Figures;
      const first = f.firstRunMs === null ? 'never' : `${(f.firstRunMs / 1000).toFixed(2)} s`;
      const loaded = f.loadedMs === null ? 'never' : `${(f.loadedMs / 1000).toFixed(2)} s`;
      const ok = f.peakRssMb <= TARGET_RSS_MB && f.firstRunMs !== null && f.firstRunMs <= TARGET_FIRST_MS;
      console.log(
        `${c.name.padEnd(28)} first run ${first.padStart(8)}   all loaded ${loaded.padStart(8)}   ` +
          `peak RSS ${f.peakRssMb.toFixed(0).padStart(4)} MB   runs ${f.runs}   watched folders ${f.watchedFolders}   ` +
          `notices ${f.notices}   ${ok ? 'meets' : 'MISSES'} targets (RSS <= ${TARGET_RSS_MB} MB, first run <= ${TARGET_FIRST_MS / 1000} s)`,
      );
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

if (process.env['RLWATCH_HOSTILE_CHILD'] === '1') {
  measure(process.argv[2]!).then(
    (f) => {
      process.stdout.write(`${JSON.stringify(f)}\n`);
      process.exit(0);
    },
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
} else main();
