// Serve soak (#12): the demo at a high rate + 100 runs open in `rlwatch serve` + one Chromium page, for SOAK_MINUTES; RSS, fds, alert flapping, request latency.
// Run: npm run bench soak-serve   (never part of a plain `npm run bench`; a smoke run: SOAK_MINUTES=2;
// env: SOAK_MINUTES (30), RATE (demo steps/s, 50), RUNS (100, the demo included), WINDOW_S (30), FLAP_RAISES (2))

import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '../test/e2e/browser';
import { runCli } from '../test/e2e/cli-process';
import { openPage, serveIsolated, servedUrl } from '../test/e2e/demo-server';
import { envNumber, logFolder } from './lib/log-folder';
import { apiClient } from './lib/api-client';
import { procMemory } from './lib/proc';
import { pct } from './lib/stats';

const MINUTES = envNumber('SOAK_MINUTES', 30);
const RATE = envNumber('RATE', 50);
const RUNS = envNumber('RUNS', 100);
const WINDOW_S = envNumber('WINDOW_S', 30);
/** An alert (run + rule + tag) raised more often than this is flapping. */
const FLAP_RAISES = envNumber('FLAP_RAISES', 2);
/** One probe (runs.list, series.get of the demo, alerts.list) per this many ms. */
const PROBE_MS = 1000;
const DEMO_RUN = 'ppo_demo';
const DEMO_TAG = 'reward';

const MB = 1024; // /proc reports kB

interface Window {
  t: number;
  rssKb: number;
  fds: number;
  lat: number[];
}

const openFds = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

const latText = (lat: readonly number[]): string => {
  if (lat.length === 0) return 'no answers';
  const s = [...lat].sort((a, b) => a - b);
  return `p50 ${pct(s, 50).toFixed(1)} / p95 ${pct(s, 95).toFixed(1)} / max ${s[s.length - 1]!.toFixed(1)} ms (${s.length})`;
};

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'rlwatch-bench-soak-serve-'));
  // RUNS - 1 finished runs (2000 steps × 10 tags each) beside the live demo.
  const finished = logFolder({ runs: RUNS - 1, stepsPerRun: 2000, tags: 10 });
  for (const r of finished.runs) cpSync(join(finished.dir, r.name), join(root, r.name), { recursive: true });
  const demo = runCli(['demo', root, '--rate', String(RATE), '--steps', String(RATE * (MINUTES * 60 + 120))]);
  await demo.waitFor(/writing a simulated PPO run/);
  const { serve, storeDir } = serveIsolated(root);
  const url = await servedUrl(serve, 120_000);
  const pid = serve.child.pid!;
  const browser = await launchChromium();
  const { page, errors } = await openPage(browser, url);
  await page.locator(`.run-list button[data-run="${DEMO_RUN}"]`).click({ timeout: 60_000 });
  const api = await apiClient(url);

  const raises = new Map<string, number>();
  const perRule = new Map<string, { raised: number; cleared: number }>();
  api.onAlert(({ kind, alert }) => {
    const rule = perRule.get(alert.rule) ?? { raised: 0, cleared: 0 };
    perRule.set(alert.rule, rule);
    if (kind === 'raised') {
      raises.set(alert.id, (raises.get(alert.id) ?? 0) + 1);
      rule.raised++;
    } else if (kind === 'cleared') {
      rule.cleared++;
    }
  });

  console.log(
    `serve soak: demo at ${RATE} steps/s + ${RUNS - 1} finished runs in serve (SQLite store), one Chromium ` +
      `page, one API client probing every ${PROBE_MS} ms; ${MINUTES} min; node ${process.version}`,
  );
  const tStart = performance.now();
  const windows: Window[] = [];
  let lat: number[] = [];
  let failedProbes = 0;
  let probing = true;
  const probeLoop = (async () => {
    while (probing) {
      for (const [channel, args] of [
        ['runs.list', {}],
        ['series.get', { run: DEMO_RUN, tag: DEMO_TAG, pixels: 1000 }],
        ['alerts.list', {}],
      ] as const) {
        const r = await api.request(channel, args);
        lat.push(r.ms);
        if (!r.ok) failedProbes++;
      }
      await new Promise((r) => setTimeout(r, PROBE_MS));
    }
  })();
  const sample = (): void => {
    const w: Window = {
      t: (performance.now() - tStart) / 1000,
      rssKb: procMemory(pid).rss,
      fds: openFds(pid),
      lat,
    };
    lat = [];
    windows.push(w);
    console.log(
      `  t=${w.t.toFixed(0).padStart(5)} s  RSS ${(w.rssKb / MB).toFixed(1).padStart(6)} MB  fds ${String(w.fds).padStart(4)}  ` +
        `alerts raised ${[...raises.values()].reduce((a, b) => a + b, 0)}  latency ${latText(w.lat)}  load ${loadavg()[0]!.toFixed(2)}`,
    );
  };
  sample();
  const timer = setInterval(sample, WINDOW_S * 1000);
  await new Promise((r) => setTimeout(r, MINUTES * 60_000));
  clearInterval(timer);
  sample();
  probing = false;
  await probeLoop;
  const peakKb = procMemory(pid).peak;
  // The data itself grows (the demo's points, 16 B each): RSS net of it is what must stay flat.
  const listed = await api.request('runs.list', {});
  const points = ((listed.value ?? []) as { points: number }[]).reduce((a, r) => a + r.points, 0);
  const serveAlive = serve.child.exitCode === null;

  api.close();
  await browser.close();
  await serve.stop();
  await demo.stop();
  rmSync(root, { recursive: true, force: true });
  rmSync(storeDir, { recursive: true, force: true });

  const first = windows[1] ?? windows[0]!;
  const last = windows[windows.length - 1]!;
  const flapping = [...raises].filter(([, n]) => n > FLAP_RAISES);
  const rssAll = windows.map((w) => w.rssKb);
  console.log(
    `\nserve soak summary (${windows.length} samples every ${WINDOW_S} s; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
  console.log(
    `  serve still running at the end: ${serveAlive ? 'yes' : 'NO'}; page errors: ${errors.length}; failed probes: ${failedProbes}`,
  );
  console.log(
    `  RSS: start ${(windows[0]!.rssKb / MB).toFixed(0)} MB, end ${(last.rssKb / MB).toFixed(0)} MB, ` +
      `sampled max ${(Math.max(...rssAll) / MB).toFixed(0)} MB, peak (VmHWM) ${(peakKb / MB).toFixed(0)} MB`,
  );
  console.log(
    `  points held at the end: ${points.toLocaleString()} (${((points * 16) / 2 ** 20).toFixed(0)} MB at 16 B/point, ` +
      `shown views only; a tag logged by two formats is stored twice)`,
  );
  console.log(
    `  open fds: start ${windows[0]!.fds}, end ${last.fds}, max ${Math.max(...windows.map((w) => w.fds))}`,
  );
  console.log(
    `  alerts: ${raises.size} raised (${[...perRule].map(([rule, c]) => `${rule} ${c.raised}↑ ${c.cleared}↓`).join(', ') || 'none'}); ` +
      `flapping (raised > ${FLAP_RAISES}×): ${flapping.length}${flapping.length ? ` — ${flapping.map(([id, n]) => `${id} ×${n}`).join(', ')}` : ''}`,
  );
  console.log(
    `  request latency, first window after start-up: ${latText(first.lat)} → last window: ${latText(last.lat)}`,
  );
  if (errors.length) console.log(`  first page error: ${errors[0]}`);
}

await main();
