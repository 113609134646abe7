// Benchmark: /metrics for 100 runs × 500 tags and 100 × 50 (response time p50/p95 gzipped as Prometheus asks and
// uncompressed, size, CPU and heap per scrape), the agent's CPU at a 15 s scrape, and the time from a trainer's
// flush to the value in a real Prometheus (scrape every 1 s).
// Run: npm run bench metrics   (SCRAPES=50 in-process, AGENT_SCRAPES=30, BENCH_SECONDS=30 idle, FLUSHES=20);
// N=7 (what `npm run bench:budget` sets): only the 100 × 500 scrapes, N of them, and its budget figure.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppCore } from '../src/core/app/app-core';
import { createHandlers } from '../src/core/app/handlers';
import { MetricsExposition } from '../src/core/metrics/exposition';
import { startServer } from '../src/core/server/serve';
import { openStore } from '../src/core/store';
import { EventFileWriter } from '../src/core/tfevents/writer';
import { runCli } from '../test/e2e/cli-process';
import { freePort, PROMETHEUS, promQuery, requireBinary, startDaemon } from '../test/cluster/daemons';
import { envNumber, fmtBytes, logFolder } from './lib/log-folder';
import { pct as sortedPct } from './lib/stats';

const TOKEN = 'bench-metrics-token-0123456789';
/** The budget's short run: N scrapes of the 100 × 500 folder, nothing else. */
const SHORT = process.env.N !== undefined;
const SCRAPES = envNumber('SCRAPES', SHORT ? envNumber('N', 7) : 50);
const SECONDS = envNumber('BENCH_SECONDS', 30);
const AGENT_SCRAPES = envNumber('AGENT_SCRAPES', 30);
const FLUSHES = envNumber('FLUSHES', 20);
const CLK_TCK = 100;

/** The p-th percentile of an unsorted sample. */
const pct = (xs: number[], p: number): number =>
  sortedPct(
    [...xs].sort((a, b) => a - b),
    p,
  );

function get(port: number, path: string, gzip = false): Promise<{ status: number; bytes: number }> {
  return new Promise((res, rej) => {
    const headers = { Authorization: `Bearer ${TOKEN}`, ...(gzip ? { 'Accept-Encoding': 'gzip' } : {}) };
    const req = request({ host: '127.0.0.1', port, path, headers }, (r) => {
      let bytes = 0;
      r.on('data', (d: Buffer) => (bytes += d.length));
      r.on('end', () => res({ status: r.statusCode ?? 0, bytes }));
    });
    req.on('error', rej);
    req.end();
  });
}

/** The step of bench/value in the agent's own /metrics (open bind), -1 when absent. */
async function agentStep(port: number): Promise<number> {
  const body = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const m = /^rlwatch_scalar_step\{run="run",tag="bench\/value"\} (\S+)$/m.exec(body);
  return m ? Number(m[1]) : -1;
}

/** utime + stime of a process in ms (Linux /proc). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) / CLK_TCK) * 1000;
}

interface ScrapeFigures {
  p50: number;
  p95: number;
  max: number;
  bytes: number;
  cpuMs: number;
}

async function timeScrapes(port: number, gzip: boolean): Promise<ScrapeFigures> {
  const ms: number[] = [];
  let bytes = 0;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < SCRAPES; i++) {
    const t0 = performance.now();
    const r = await get(port, '/metrics', gzip);
    ms.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`/metrics answered ${r.status}`);
    bytes = r.bytes;
  }
  const cpu = process.cpuUsage(cpu0);
  return {
    p50: pct(ms, 50),
    p95: pct(ms, 95),
    max: Math.max(...ms),
    bytes,
    cpuMs: (cpu.user + cpu.system) / 1000 / SCRAPES,
  };
}

const fmtScrapes = (f: ScrapeFigures): string =>
  `p50 ${f.p50.toFixed(1)} ms, p95 ${f.p95.toFixed(1)} ms, max ${f.max.toFixed(1)} ms, ${fmtBytes(f.bytes)}, ` +
  `CPU ${f.cpuMs.toFixed(1)} ms per scrape`;

/** In-process serve on `dir`: sequential scrapes gzipped (Prometheus' Accept-Encoding) and uncompressed. */
async function responseTimes(dir: string, what: string, figure: string | null): Promise<void> {
  const core = new AppCore({
    host: { mode: 'serve', version: 'bench', allowOpenFolder: false },
    store: openStore({ path: null }),
  });
  await core.open(dir);
  const server = await startServer({
    bus: core.bus,
    handlers: createHandlers(core),
    rendererDir: null,
    token: 'page-token-unused-here-0000',
    metrics: { scraper: new MetricsExposition(core), token: TOKEN },
  });
  for (let i = 0; i < (SHORT ? 2 : 10); i++) await get(server.port, '/metrics', true);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heap0 = process.memoryUsage();
  const gz = await timeScrapes(server.port, true);
  const peakRss = process.memoryUsage().rss;
  gc?.();
  const heap1 = process.memoryUsage();
  const plain = SHORT ? null : await timeScrapes(server.port, false);
  const series = (await new MetricsExposition(core).scrape()).body
    .split('\n')
    .filter((l) => l && !l.startsWith('#')).length;
  console.log(
    `/metrics, ${what} (in-process serve, ${SCRAPES} sequential scrapes, ${series} series; server and client in one process)\n` +
      `  gzip (as Prometheus asks): ${fmtScrapes(gz)}\n` +
      (plain ? `  uncompressed:              ${fmtScrapes(plain)}\n` : '') +
      `  heap kept after the scrapes${gc ? '' : ' (run with --expose-gc for a collected figure)'}: ` +
      `${fmtBytes(heap1.heapUsed - heap0.heapUsed)} over before; RSS ${fmtBytes(heap0.rss)} before, ${fmtBytes(peakRss)} after`,
  );
  if (figure) console.log(`figure ${figure} ${gz.p50.toFixed(1)}`);
  await server.close();
  await core.dispose();
}

async function agentOverhead(dir: string): Promise<void> {
  const port = await freePort();
  const agent = runCli(
    ['agent', dir, '--port', '0', '--metrics-port', String(port), '--metrics-token', TOKEN],
    {
      ...process.env,
      RLWATCH_STORE: 'memory',
    },
  );
  await agent.waitFor(/Prometheus metrics at/, 60_000);
  // Let the cold read finish before measuring.
  await new Promise((res) => setTimeout(res, 10_000));
  const pid = agent.child.pid!;
  const idle0 = processCpuMs(pid);
  const t0 = performance.now();
  await new Promise((res) => setTimeout(res, SECONDS * 1000));
  const idlePct = ((processCpuMs(pid) - idle0) / (performance.now() - t0)) * 100;
  // The agent's own CPU around each scrape (its background work in that ~0.1 s window is < 1 % of it).
  const perScrape: number[] = [];
  for (let i = 0; i < AGENT_SCRAPES; i++) {
    const before = processCpuMs(pid);
    const r = await get(port, '/metrics');
    if (r.status !== 200) throw new Error(`agent /metrics answered ${r.status}`);
    perScrape.push(processCpuMs(pid) - before);
    await new Promise((res) => setTimeout(res, 1000));
  }
  await agent.stop();
  const mean = perScrape.reduce((a, b) => a + b, 0) / perScrape.length;
  console.log(
    `agent on 100 runs × 50 tags: ${mean.toFixed(0)} ms of its CPU per scrape (mean of ${AGENT_SCRAPES}, /proc at 10 ms ticks) = ` +
      `${((mean / 15_000) * 100).toFixed(2)} % of a core at a 15 s scrape (target ≤ 0.5 %); ` +
      `the agent without scrapes: ${idlePct.toFixed(2)} % over ${SECONDS} s (the workspace's 1 s sweep of 100 runs, the sampler)`,
  );
}

async function flushToPrometheus(): Promise<void> {
  requireBinary(PROMETHEUS, 'prometheus');
  const root = mkdtempSync(join(tmpdir(), 'rlwatch-bench-flush-'));
  const runDir = join(root, 'run');
  mkdirSync(runDir);
  const writer = new EventFileWriter(runDir, { wallTime: Date.now() / 1000 });
  writer.scalars(0, [{ tag: 'bench/value', value: 0 }], 'simple', Date.now() / 1000);
  writer.flush();
  const agentPort = await freePort();
  const agent = runCli(['agent', root, '--port', '0', '--metrics-port', String(agentPort)], {
    ...process.env,
    RLWATCH_STORE: 'memory',
  });
  await agent.waitFor(/Prometheus metrics at/, 60_000);
  const promPort = await freePort();
  writeFileSync(
    join(root, 'prometheus.yml'),
    `global: { scrape_interval: 1s }\nscrape_configs:\n  - job_name: rlwatch\n    static_configs: [{ targets: ['127.0.0.1:${agentPort}'] }]\n`,
  );
  const prom = await startDaemon(
    PROMETHEUS,
    [
      `--config.file=${join(root, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(root, 'data')}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
      '--log.level=warn',
    ],
    promPort,
    '/-/ready',
  );
  // Prometheus applies target discovery every 5 s: wait for the first sample before timing flushes.
  while ((await promQuery(prom.base, 'rlwatch_scalar_step{tag="bench/value"}')).length === 0)
    await new Promise((res) => setTimeout(res, 100));
  const latencies: number[] = [];
  const agentLatencies: number[] = [];
  for (let step = 1; step <= FLUSHES; step++) {
    // Flushes land at random phases of the scrape cycle.
    await new Promise((res) => setTimeout(res, 300 + Math.random() * 700));
    writer.scalars(step, [{ tag: 'bench/value', value: step }], 'simple', Date.now() / 1000);
    writer.flush();
    const t0 = performance.now();
    let inAgent = 0;
    for (;;) {
      if (inAgent === 0 && (await agentStep(agentPort)) >= step) inAgent = performance.now() - t0;
      const r = await promQuery(prom.base, 'rlwatch_scalar_step{tag="bench/value"}');
      if (Number(r[0]?.value?.[1]) >= step) break;
      await new Promise((res) => setTimeout(res, 20));
    }
    latencies.push(performance.now() - t0);
    agentLatencies.push(inAgent || performance.now() - t0);
  }
  writer.close();
  await prom.stop();
  await agent.stop();
  rmSync(root, { recursive: true, force: true });
  console.log(
    `flush → value in Prometheus (scrape every 1 s, ${FLUSHES} flushes, query polled every 20 ms): p50 ${pct(latencies, 50).toFixed(0)} ms, ` +
      `p95 ${pct(latencies, 95).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms; of which the agent's read ` +
      `(flush → the value in its /metrics): p50 ${pct(agentLatencies, 50).toFixed(0)} ms, p95 ${pct(agentLatencies, 95).toFixed(0)} ms`,
  );
}

console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`);
// 500 tags: the case (256 exposed per run by default, the rest counted as dropped); few steps: the scrape
// reads each tag's last point only, so the folder's length does not matter here, its width does.
const wide = logFolder({ runs: 100, tags: 500, stepsPerRun: SHORT ? 2 : 20 });
await responseTimes(wide.dir, '100 runs × 500 tags', 'metrics.scrape_100x500_ms');
if (!SHORT) {
  const folder = logFolder({ runs: 100, tags: 50, stepsPerRun: 200 });
  await responseTimes(folder.dir, '100 runs × 50 tags', null);
  await flushToPrometheus();
  await agentOverhead(folder.dir);
}
