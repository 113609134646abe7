// Debian's real Prometheus scraping `rlwatch agent` on a live demo run, forwarding the KL alert to a real Alertmanager.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { parseQueryGpuCsv } from '../../src/core/system/nvidia-csv';
import { decodeWire } from '../../src/shared/wire-codec';
import type { AlertChange } from '../../src/shared/domain';
import { runCli, type CliProcess } from '../e2e/cli-process';
import { installFakeNvidiaSmi, type FakeNvidiaSmi } from '../core/system/fake-nvidia-smi';
import { fastRowsFromCapture, readCsv, readXml } from '../core/system/fixtures';
import { ALERTMANAGER, PROMETHEUS, promQuery, requireBinary, type Daemon } from './daemons';
import {
  DEPLOY,
  shippedAlertmanagerConfig,
  type Alertmanager,
  startAlertmanager,
  startPrometheus,
  startWebhook,
  type Webhook,
  type WebhookAlert,
} from './stack';

const METRICS_TOKEN = 'cluster-test-metrics-token-0123';
/** The demo at 20 steps/s: the KL alert is raised near step 155 (~8 s) and cleared near step 448 (~22 s). */
const RATE = 20;
const STEPS = 520;
/** A recorded `--query-gpu` capture of an H100 under load (test/fixtures/nvidia-smi, from the corpus). */
const GPU_CAPTURE = 'linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.query-gpu.load.csv';

interface Seen {
  change: AlertChange;
  at: number;
}

describe('Prometheus and Alertmanager on a live rlwatch agent', () => {
  const temp: string[] = [];
  const tempDir = (prefix: string): string => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    temp.push(d);
    return d;
  };
  let fake: FakeNvidiaSmi;
  let demo: CliProcess;
  let agent: CliProcess;
  let socket: WebSocket;
  let prometheus: Daemon;
  let alertmanager: Alertmanager;
  let webhook: Webhook;
  const received = (): WebhookAlert[] => webhook.alerts();
  const changes: Seen[] = [];
  let runDir: string;

  beforeAll(async () => {
    requireBinary(PROMETHEUS, 'prometheus');
    requireBinary(ALERTMANAGER, 'prometheus-alertmanager');
    // The sampler streams the fast fields only after a first XML answer: a recorded one (its details are a T4's;
    // the streamed rows, an H100 under load, are what the snapshot shows).
    fake = installFakeNvidiaSmi({
      kind: 'stream',
      xml: readXml('tesla-t4.xml'),
      csv: fastRowsFromCapture(GPU_CAPTURE),
    });

    // The webhook receiver Alertmanager posts to.
    webhook = await startWebhook();

    // deploy/alertmanager.yml as shipped, pointed at the receiver, with short waits for warnings.
    const am = shippedAlertmanagerConfig();
    Object.assign(am.route, { group_wait: '1s', group_interval: '1s' });
    const alertmanagerUp = startAlertmanager(tempDir('rlwatch-am-'), am, webhook);

    runDir = tempDir('rlwatch-cluster-run-');
    demo = runCli(['demo', runDir, '--rate', String(RATE), '--steps', String(STEPS)]);
    await demo.waitFor(/writing a simulated PPO run/);
    agent = runCli(['agent', runDir, '--port', '0', '--metrics-token', METRICS_TOKEN], {
      ...fake.env,
      RLWATCH_STORE: 'memory',
    });
    const url = new URL(
      (await agent.waitFor(/agent for \S+ at (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/))[1]!,
    );
    socket = await openSocket(url);
    socket.on('message', (d: Buffer) => {
      const m = decodeWire(d.toString()) as { event?: string; payload?: unknown };
      if (m.event === 'alerts.changed') changes.push({ change: m.payload as AlertChange, at: Date.now() });
    });

    // deploy/prometheus.yml as shipped, scraping this agent every second with the metrics token.
    alertmanager = await alertmanagerUp;
    prometheus = await startPrometheus(tempDir('rlwatch-prom-'), {
      targets: [`127.0.0.1:${url.port}`],
      token: METRICS_TOKEN,
      alertmanagerPort: alertmanager.port,
    });
  });

  afterAll(async () => {
    socket?.close();
    await prometheus?.stop();
    await alertmanager?.stop();
    await agent?.stop();
    await demo?.stop();
    await webhook?.close();
    fake?.cleanup();
    for (const d of temp) rmSync(d, { recursive: true, force: true });
  });

  test('Prometheus scrapes the agent with the metrics token', async () => {
    await expect
      .poll(async () => (await promQuery(prometheus.base, 'up{job="rlwatch"}'))[0]?.value?.[1], {
        timeout: 20_000,
      })
      .toBe('1');
  });

  test('the KL alert reads 1 in every scrape after the engine raised it, and 0 in every scrape after it cleared', async () => {
    const kl = (kind: AlertChange['kind']): Seen | undefined =>
      changes.find((c) => c.change.alert.rule === 'kl-above-target' && c.change.kind === kind);
    await expect.poll(() => kl('cleared') !== undefined, { timeout: 40_000, interval: 200 }).toBe(true);
    const raisedAt = kl('raised')!.at;
    const clearedAt = kl('cleared')!.at;
    // A few scrapes past the clear, then the raw samples of every severity's series, merged per scrape.
    await expect
      .poll(async () => (await klSamples()).filter((s) => s.t > clearedAt).length, {
        timeout: 10_000,
        interval: 250,
      })
      .toBeGreaterThanOrEqual(2);
    const samples = await klSamples();
    const after = samples.filter((s) => s.t > raisedAt);
    const firstOne = after.findIndex((s) => s.v === 1);
    // The first scrape that started after the raise shows it (no scrape after the raise reads 0 before it)…
    expect(firstOne).toBe(0);
    // …it stays 1 until the clear, and every scrape after the clear reads 0.
    const lastOne = samples.findLastIndex((s) => s.v === 1);
    expect(samples[lastOne]!.t).toBeLessThan(clearedAt);
    expect(samples.slice(lastOne + 1).every((s) => s.v === 0)).toBe(true);
    expect(samples.slice(samples.indexOf(after[0]!), lastOne + 1).every((s) => s.v === 1)).toBe(true);
    expect(samples.filter((s) => s.t > clearedAt).length).toBeGreaterThanOrEqual(2);
  });

  test('the alert reaches the webhook through Alertmanager with run, tag, message and advice', async () => {
    await expect
      .poll(() => received().some((a) => a.labels.rule === 'kl-above-target' && a.status === 'firing'), {
        timeout: 30_000,
        interval: 200,
      })
      .toBe(true);
    const a = received().find((x) => x.labels.rule === 'kl-above-target' && x.status === 'firing')!;
    expect(a.labels).toMatchObject({
      alertname: 'RlwatchHealthAlert',
      run: 'ppo_demo',
      tag: 'approx_kl',
      source: 'rlwatch',
    });
    expect(a.annotations.run).toBe('ppo_demo');
    expect(a.annotations.tag).toBe('approx_kl');
    expect(a.annotations.message).toMatch(/^approx_kl = \S+ at step \d+, \S+× target_kl 0\.02$/);
    expect(a.annotations.advice!.length).toBeGreaterThan(20);
    expect(a.annotations.threshold).toBe('target_kl = 0.02');
  });

  test('after the demo ends, every scalar in Prometheus equals `rlwatch inspect --json` (step and value)', async () => {
    expect(await demo.stop()).toBe(0);
    const inspect = runCli(['inspect', runDir, '--json']);
    expect(await new Promise((res) => inspect.child.once('exit', res))).toBe(0);
    const doc = JSON.parse(inspect.output()) as {
      runs: { run: string; scalars: Record<string, { lastStep: number; last: number | null }> }[];
    };
    const expected = doc.runs.find((r) => r.run === 'ppo_demo')!.scalars;
    const byTag = async (name: string): Promise<Map<string, string>> =>
      new Map(
        (await promQuery(prometheus.base, `${name}{run="ppo_demo"}`)).map((s) => [
          s.metric.tag!,
          s.value![1],
        ]),
      );
    await expect
      .poll(
        async () => {
          const steps = await byTag('rlwatch_scalar_step');
          return Object.entries(expected).every(([tag, e]) => steps.get(tag) === String(e.lastStep));
        },
        { timeout: 20_000, interval: 250 },
      )
      .toBe(true);
    const values = await byTag('rlwatch_scalar');
    expect([...values.keys()].sort()).toEqual(Object.keys(expected).sort());
    for (const [tag, e] of Object.entries(expected)) {
      const got = Number(values.get(tag));
      if (e.last === null) expect(got, tag).toBeNaN();
      else expect(got, tag).toBe(e.last);
    }
  });

  test('GPU series appear with DCGM label names from the fake nvidia-smi', async () => {
    const parsed = parseQueryGpuCsv(readCsv(GPU_CAPTURE));
    if (!parsed.ok) throw new Error(parsed.message);
    const gpus = parsed.value;
    expect(gpus.length).toBeGreaterThan(0);
    // The first XML answer (a T4's) is exposed until the streamed rows (the H100's) arrive: wait for the streamed GPUs.
    const streamedUuids = async (): Promise<string[]> =>
      (await promQuery(prometheus.base, 'rlwatch_gpu_utilization_ratio'))
        .map((x) => x.metric.UUID ?? '')
        .sort();
    await expect.poll(streamedUuids, { timeout: 15_000 }).toEqual(gpus.map((g) => g.uuid ?? '').sort());
    const series = await promQuery(prometheus.base, 'rlwatch_gpu_utilization_ratio');
    for (const g of gpus) {
      const s = series.find((x) => x.metric.UUID === g.uuid)!;
      expect(s.metric).toMatchObject({ gpu: String(g.index), modelName: g.name, device: `nvidia${g.index}` });
      expect(Number(s.value![1])).toBeCloseTo(g.utilizationGpuPct! / 100, 12);
    }
    const mem = await promQuery(prometheus.base, 'rlwatch_gpu_memory_used_bytes');
    expect(Number(mem[0]!.value![1])).toBe(gpus[0]!.memoryUsedMiB! * 1024 * 1024);
  });

  test('every query of deploy/grafana-dashboard.json runs on this Prometheus, and the RL panels have data', async () => {
    const dash = JSON.parse(readFileSync(join(DEPLOY, 'grafana-dashboard.json'), 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const withData = new Set<string>();
    for (const p of dash.panels)
      for (const t of p.targets) {
        const expr = t.expr.replace(/\$\w+/g, '.*');
        if ((await promQuery(prometheus.base, expr)).length > 0) withData.add(p.title);
      }
    expect([...withData]).toEqual(
      expect.arrayContaining(['Scalars ($tag)', 'Step', 'Progress', 'GPU utilisation']),
    );
  });

  /** Raw samples of rlwatch_alert{rule="kl-above-target"} (any severity), one per scrape: 1 if any series is 1. */
  async function klSamples(): Promise<{ t: number; v: number }[]> {
    const series = await promQuery(
      prometheus.base,
      'rlwatch_alert{rule="kl-above-target",run="ppo_demo"}[5m]',
    );
    const byTime = new Map<number, number>();
    for (const s of series)
      for (const [t, v] of s.values ?? [])
        byTime.set(t * 1000, Math.max(byTime.get(t * 1000) ?? 0, Number(v)));
    return [...byTime].sort((a, b) => a[0] - b[0]).map(([t, v]) => ({ t, v }));
  }
});

/** The agent's API socket as a remote rlwatch opens it (Origin = the agent as its URL names it). */
function openSocket(page: URL): Promise<WebSocket> {
  return new Promise((res, rej) => {
    const ws = new WebSocket(`ws://${page.host}/ws?token=${page.searchParams.get('token')}`, {
      headers: { Origin: `http://${page.host}` },
    });
    ws.once('open', () => res(ws));
    ws.once('error', rej);
  });
}
