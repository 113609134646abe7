// Benchmark: /metrics for 100 runs × 50 tags (response time p50/p95, size, CPU per scrape), the agent's CPU at a
// 15 s scrape, and the time from a trainer's flush to the value in a real Prometheus (scrape every 1 s).
// Run: npm run bench metrics   (BENCH_SECONDS=120 of 15 s scrapes by default; FLUSHES=20)

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

const TOKEN = 'bench-metrics-token-0123456789';
const SCRAPES = envNumber('SCRAPES', 200);
const SECONDS = envNumber('BENCH_SECONDS', 120);
const FLUSHES = envNumber('FLUSHES', 20);
const CLK_TCK = 100;

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

function get(port: number, path: string): Promise<{ status: number; bytes: number }> {
  return new Promise((res, rej) => {
    const req = request(
      { host: '127.0.0.1', port, path, headers: { Authorization: `Bearer ${TOKEN}` } },
      (r) => {
        let bytes = 0;
        r.on('data', (d: Buffer) => (bytes += d.length));
        r.on('end', () => res({ status: r.statusCode ?? 0, bytes }));
      },
    );
    req.on('error', rej);
    req.end();
  });
}

/** utime + stime of a process in ms (Linux /proc). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) / CLK_TCK) * 1000;
}

async function responseTimes(dir: string): Promise<{ perScrapeCpuMs: number }> {
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
  for (let i = 0; i < 10; i++) await get(server.port, '/metrics');
  const ms: number[] = [];
  let bytes = 0;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < SCRAPES; i++) {
    const t0 = performance.now();
    const r = await get(server.port, '/metrics');
    ms.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`/metrics answered ${r.status}`);
    bytes = r.bytes;
  }
  const cpu = process.cpuUsage(cpu0);
  const perScrapeCpuMs = (cpu.user + cpu.system) / 1000 / SCRAPES;
  const series = (await new MetricsExposition(core).scrape()).body
    .split('\n')
    .filter((l) => l && !l.startsWith('#'));
  console.log(
    `/metrics, 100 runs × 50 tags (in-process serve, ${SCRAPES} sequential scrapes): p50 ${pct(ms, 50).toFixed(1)} ms, ` +
      `p95 ${pct(ms, 95).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms; ${fmtBytes(bytes)} (${series.length} series); ` +
      `CPU ${perScrapeCpuMs.toFixed(1)} ms per scrape (server and client in one process)`,
  );
  await server.close();
  await core.dispose();
  return { perScrapeCpuMs };
}

async function agentOverhead(dir: string, perScrapeCpuMs: number): Promise<void> {
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
  await new Promise((res) => setTimeout(res, (SECONDS * 1000) / 2));
  const idleMs = processCpuMs(pid) - idle0;
  const idleWall = performance.now() - t0;
  const busy0 = processCpuMs(pid);
  const t1 = performance.now();
  let scrapes = 0;
  while (performance.now() - t1 < (SECONDS * 1000) / 2) {
    const r = await get(port, '/metrics');
    if (r.status !== 200) throw new Error(`agent /metrics answered ${r.status}`);
    scrapes++;
    await new Promise((res) => setTimeout(res, 15_000));
  }
  const busyMs = processCpuMs(pid) - busy0;
  const busyWall = performance.now() - t1;
  await agent.stop();
  const idlePct = (idleMs / idleWall) * 100;
  const busyPct = (busyMs / busyWall) * 100;
  console.log(
    `agent on 100 runs × 50 tags, ${SECONDS / 2} s without scrapes then ${SECONDS / 2} s with one every 15 s (${scrapes}): ` +
      `${idlePct.toFixed(2)} % → ${busyPct.toFixed(2)} % of a core (the difference, ${(busyPct - idlePct).toFixed(2)} %, is the scrapes'; ` +
      `from the per-scrape CPU: ${((perScrapeCpuMs / 15_000) * 100).toFixed(3)} %; target ≤ 0.5 %)`,
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
  const latencies: number[] = [];
  for (let step = 1; step <= FLUSHES; step++) {
    // Flushes land at random phases of the scrape cycle.
    await new Promise((res) => setTimeout(res, 300 + Math.random() * 700));
    writer.scalars(step, [{ tag: 'bench/value', value: step }], 'simple', Date.now() / 1000);
    writer.flush();
    const t0 = performance.now();
    for (;;) {
      const r = await promQuery(prom.base, 'rlwatch_scalar_step{tag="bench/value"}');
      if (Number(r[0]?.value?.[1]) >= step) break;
      await new Promise((res) => setTimeout(res, 20));
    }
    latencies.push(performance.now() - t0);
  }
  writer.close();
  await prom.stop();
  await agent.stop();
  rmSync(root, { recursive: true, force: true });
  console.log(
    `flush → value in Prometheus (scrape every 1 s, ${FLUSHES} flushes, query polled every 20 ms): p50 ${pct(latencies, 50).toFixed(0)} ms, ` +
      `p95 ${pct(latencies, 95).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms (bound: the scrape interval + the agent's read)`,
  );
}

const folder = logFolder({ runs: 100, tags: 50, stepsPerRun: 200 });
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`);
const { perScrapeCpuMs } = await responseTimes(folder.dir);
await flushToPrometheus();
await agentOverhead(folder.dir, perScrapeCpuMs);
