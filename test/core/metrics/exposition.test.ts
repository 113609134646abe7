// The Prometheus exposition of an AppCore's state: names, labels, values, alert lifetimes and cardinality bounds.

import { describe, expect, test } from 'vitest';
import type { AlertInfo, RunInfo } from '../../../src/shared/domain';
import type { NvidiaGpu, SystemSnapshot } from '../../../src/shared/system-types';
import type { JobIdentity } from '../../../src/core/app/run-overlay';
import { JobMonitor } from '../../../src/core/jobs/job-monitor';
import { MetricsExposition } from '../../../src/core/metrics/exposition';
import type { LastPoint, MetricsSource } from '../../../src/core/metrics/metrics-source';
import { parseExposition, samples, type Sample } from './exposition-text';

const NOW = 1_750_000_000_000;

function run(name: string, over: Partial<RunInfo> = {}): RunInfo {
  return {
    run: name,
    sources: [],
    tags: [],
    points: 0,
    lastEventAt: NOW - 5000,
    fileWrittenAt: NOW - 4000,
    progress: null,
    loaded: true,
    restarts: 0,
    sessions: [],
    worstAlert: null,
    stalled: false,
    ...over,
  };
}

function alert(runName: string, rule: string, tag: string | null, over: Partial<AlertInfo> = {}): AlertInfo {
  return {
    tags: [],
    wallTime: null,
    statistic: null,
    clearedWallTime: null,
    id: JSON.stringify([runName, rule, tag]),
    rule,
    severity: 'warning',
    run: runName,
    tag,
    step: 10,
    value: 0.05,
    message: `${tag} = 0.05 above target_kl 0.02`,
    advice: 'Lower the learning rate.',
    raisedAt: NOW,
    acknowledged: false,
    snoozedUntil: null,
    active: true,
    clearedAt: null,
    clearedStep: null,
    ...over,
  };
}

function gpu(index: number, over: Partial<NvidiaGpu> = {}): NvidiaGpu {
  return {
    index,
    name: 'NVIDIA H100 80GB HBM3',
    uuid: `GPU-${index}`,
    pciBusId: `00000000:0${index}:00.0`,
    utilizationGpuPct: 87,
    utilizationMemoryPct: 40,
    memoryUsedMiB: 1024,
    memoryTotalMiB: 81559,
    temperatureC: 61,
    powerDrawW: 310.5,
    powerLimitW: 700,
    fanSpeedPct: null,
    clocks: { graphicsMHz: null, smMHz: null, memMHz: null },
    throttleReasonsActive: null,
    migMode: null,
    processes: null,
    detailAt: null,
    ...over,
  };
}

class FakeSource implements MetricsSource {
  runList: RunInfo[] = [];
  points = new Map<string, Map<string, LastPoint>>();
  alerts: AlertInfo[] = [];
  snapshot: SystemSnapshot | null = null;
  identity: JobIdentity | null = null;
  thresholds: Record<string, number> = { target_kl: 0.02 };
  runs = (): RunInfo[] => this.runList;
  lastPoints = (r: string): ReadonlyMap<string, LastPoint> => this.points.get(r) ?? new Map();
  activeAlerts = (): AlertInfo[] => this.alerts;
  thresholdValues = (): Record<string, number> => this.thresholds;
  latestSystemSample = (): SystemSnapshot | null => this.snapshot;

  addRun(
    name: string,
    tags: Record<string, [step: number, wall: number, value: number]>,
    over?: Partial<RunInfo>,
  ) {
    this.runList.push(run(name, { tags: Object.keys(tags), ...over }));
    this.points.set(
      name,
      new Map(
        Object.entries(tags).map(([t, [lastStep, lastWallTime, lastValue]]) => [
          t,
          { count: lastStep + 1, lastStep, lastWallTime, lastValue },
        ]),
      ),
    );
  }
}

async function scrape(m: MetricsExposition): Promise<Sample[]> {
  const { body, contentType } = await m.scrape();
  expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(body);
}

const value = (all: Sample[], name: string, where: Record<string, string> = {}): number | undefined => {
  const s = samples(all, name, where);
  if (s.length > 1) throw new Error(`${s.length} samples of ${name}`);
  return s[0]?.value;
};

describe('MetricsExposition', () => {
  test('per run and tag: last value, step and wall time; per run: freshness, status, progress, ETA', async () => {
    const src = new FakeSource();
    src.addRun(
      'ppo/seed_1',
      { approx_kl: [120, 1_749_999_990.5, 0.0123], 'Train/Loss': [120, 1_749_999_990.5, NaN] },
      {
        progress: { fraction: 0.25, etaSeconds: 900 },
        restarts: 1,
      },
    );
    src.addRun('crashed_one', { reward: [3, 1_700_000_000, -1] }, { ended: 'crashed' });
    const all = await scrape(new MetricsExposition(src, { clock: () => NOW, version: '9.9.9' }));
    const at = { run: 'ppo/seed_1', tag: 'approx_kl' };
    expect(value(all, 'rlwatch_scalar', at)).toBe(0.0123);
    expect(value(all, 'rlwatch_scalar_step', at)).toBe(120);
    expect(value(all, 'rlwatch_scalar_wall_time_seconds', at)).toBe(1_749_999_990.5);
    expect(value(all, 'rlwatch_scalar', { run: 'ppo/seed_1', tag: 'Train/Loss' })).toBeNaN();
    expect(value(all, 'rlwatch_run_last_event_timestamp_seconds', { run: 'ppo/seed_1' })).toBe(
      (NOW - 5000) / 1000,
    );
    expect(value(all, 'rlwatch_run_file_written_timestamp_seconds', { run: 'ppo/seed_1' })).toBe(
      (NOW - 4000) / 1000,
    );
    expect(value(all, 'rlwatch_run_progress_ratio', { run: 'ppo/seed_1' })).toBe(0.25);
    expect(value(all, 'rlwatch_run_eta_seconds', { run: 'ppo/seed_1' })).toBe(900);
    expect(value(all, 'rlwatch_run_restarts_total', { run: 'ppo/seed_1' })).toBe(1);
    expect(value(all, 'rlwatch_run_status', { run: 'ppo/seed_1', status: 'live' })).toBe(1);
    expect(value(all, 'rlwatch_run_status', { run: 'ppo/seed_1', status: 'crashed' })).toBe(0);
    expect(value(all, 'rlwatch_run_status', { run: 'crashed_one', status: 'crashed' })).toBe(1);
    expect(value(all, 'rlwatch_run_progress_ratio', { run: 'crashed_one' })).toBeUndefined();
    expect(value(all, 'rlwatch_runs')).toBe(2);
    expect(value(all, 'rlwatch_build_info', { version: '9.9.9' })).toBe(1);
    for (const name of ['rlwatch_metrics_dropped_series', 'rlwatch_metrics_drops_total'])
      expect(samples(all, name).map((s) => [s.labels.reason, s.value])).toEqual([
        ['runs', 0],
        ['tags', 0],
        ['alerts', 0],
      ]);
  });

  test("rlwatch_run_status has the run list's states: a run last written days ago is idle, not running", async () => {
    const src = new FakeSource();
    src.addRun('old', { reward: [3, 1, 1] }, { lastEventAt: NOW - 449 * 86_400_000, fileWrittenAt: null });
    src.addRun('loading', {}, { loaded: false, lastEventAt: null, fileWrittenAt: null });
    src.addRun(
      'gone',
      { reward: [3, 1, 1] },
      {
        sources: [{ file: 'a.csv', format: 'csv', records: 3, errors: [], dead: true }],
      },
    );
    // Alerts are series of their own: a run with a critical alert still shows what it is doing.
    src.addRun('alerting', { reward: [3, 1, 1] }, { worstAlert: 'critical' });
    const all = await scrape(new MetricsExposition(src, { clock: () => NOW }));
    const current = (run: string): string[] =>
      samples(all, 'rlwatch_run_status', { run })
        .filter((s) => s.value === 1)
        .map((s) => s.labels.status!);
    expect(current('old')).toEqual(['idle']);
    expect(current('loading')).toEqual(['loading']);
    expect(current('gone')).toEqual(['dead']);
    expect(current('alerting')).toEqual(['live']);
    expect(samples(all, 'rlwatch_run_status', { run: 'old' }).map((s) => s.labels.status)).toEqual([
      'crashed',
      'exited',
      'stalled',
      'dead',
      'finished',
      'loading',
      'live',
      'idle',
    ]);
  });

  test("the agent's own process_* and nodejs_* metrics; restarts are a counter", async () => {
    const src = new FakeSource();
    src.addRun('r', { reward: [3, 1, 1] }, { restarts: 2 });
    const { body } = await new MetricsExposition(src, { clock: () => NOW }).scrape();
    const all = parseExposition(body);
    expect(value(all, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(value(all, 'process_start_time_seconds')).toBeGreaterThan(0);
    expect(samples(all, 'process_cpu_seconds_total')).toHaveLength(1);
    expect(samples(all, 'nodejs_heap_size_used_bytes')).toHaveLength(1);
    expect(samples(all, 'nodejs_eventloop_lag_seconds')).toHaveLength(1);
    expect(body).toContain('# TYPE rlwatch_run_restarts_total counter');
    expect(value(all, 'rlwatch_run_restarts_total', { run: 'r' })).toBe(2);
    expect(samples(all, 'rlwatch_run_restarts')).toEqual([]);
  });

  test('an alert is 1 while active, 0 once cleared, gone with its run; its threshold, value and advice beside it', async () => {
    const src = new FakeSource();
    src.addRun('a', { approx_kl: [10, 1, 0.05] });
    src.alerts = [alert('a', 'kl-above-target', 'approx_kl')];
    const m = new MetricsExposition(src, { clock: () => NOW });
    const labels = { run: 'a', rule: 'kl-above-target', severity: 'warning', tag: 'approx_kl' };
    let all = await scrape(m);
    expect(value(all, 'rlwatch_alert', labels)).toBe(1);
    expect(
      value(all, 'rlwatch_alert_threshold', { run: 'a', rule: 'kl-above-target', threshold: 'target_kl' }),
    ).toBe(0.02);
    expect(value(all, 'rlwatch_alert_value', { run: 'a', rule: 'kl-above-target' })).toBe(0.05);
    const info = samples(all, 'rlwatch_alert_info', { run: 'a' });
    expect(info.map((s) => [s.labels.advice, s.labels.message, s.value])).toEqual([
      ['Lower the learning rate.', 'approx_kl = 0.05 above target_kl 0.02', 1],
    ]);

    // Escalated: the critical series is 1, the warning one reads 0.
    src.alerts = [alert('a', 'kl-above-target', 'approx_kl', { severity: 'critical' })];
    all = await scrape(m);
    expect(value(all, 'rlwatch_alert', { ...labels, severity: 'critical' })).toBe(1);
    expect(value(all, 'rlwatch_alert', labels)).toBe(0);

    src.alerts = [];
    all = await scrape(m);
    expect(value(all, 'rlwatch_alert', { ...labels, severity: 'critical' })).toBe(0);
    expect(samples(all, 'rlwatch_alert_threshold')).toEqual([]);
    expect(samples(all, 'rlwatch_alert_info')).toEqual([]);

    src.runList = [];
    all = await scrape(m);
    expect(samples(all, 'rlwatch_alert')).toEqual([]);
  });

  test('the machine pseudo-run keeps its cleared alerts at 0; a tagless alert has tag=""', async () => {
    const src = new FakeSource();
    src.alerts = [alert('(this machine)', 'memory-high', 'memory_pct'), alert('r', 'stalled-run', null)];
    src.addRun('r', {});
    src.thresholds = { memory_max: 90, stall_alert_floor_s: 600 };
    const m = new MetricsExposition(src, { clock: () => NOW });
    let all = await scrape(m);
    expect(value(all, 'rlwatch_alert', { run: 'r', rule: 'stalled-run', tag: '' })).toBe(1);
    expect(
      value(all, 'rlwatch_alert_threshold', { rule: 'stalled-run', threshold: 'stall_alert_floor_s' }),
    ).toBe(600);
    expect(value(all, 'rlwatch_alert_threshold', { rule: 'memory-high', threshold: 'memory_max' })).toBe(90);
    src.alerts = [];
    all = await scrape(m);
    expect(value(all, 'rlwatch_alert', { run: '(this machine)', rule: 'memory-high' })).toBe(0);
  });

  test('cardinality: runs and tags past their bounds are left out and counted; alert series are bounded', async () => {
    const src = new FakeSource();
    src.addRun('old', { a: [1, 1, 1], b: [1, 1, 1] }, { lastEventAt: NOW - 100_000 });
    src.addRun('new', { a: [1, 1, 1], b: [1, 1, 1], c: [1, 1, 1] }, { lastEventAt: NOW });
    src.alerts = [
      alert('new', 'non-finite', 'a'),
      alert('new', 'non-finite', 'b'),
      alert('new', 'non-finite', 'c'),
    ];
    const log: string[] = [];
    const m = new MetricsExposition(src, {
      maxRuns: 1,
      maxTagsPerRun: 2,
      maxAlertSeries: 2,
      clock: () => NOW,
      log: (line) => log.push(line),
    });
    let all = await scrape(m);
    expect(samples(all, 'rlwatch_scalar').map((s) => `${s.labels.run}/${s.labels.tag}`)).toEqual([
      'new/a',
      'new/b',
    ]);
    expect(samples(all, 'rlwatch_run_status', { run: 'old' })).toEqual([]);
    expect(samples(all, 'rlwatch_alert')).toHaveLength(2);
    // old: 2 tags × 3 series + 13 run series (freshness 2, status 8, progress, ETA, restarts); new: 1 tag × 3; one alert.
    const dropped = (all: Sample[]): number[] =>
      ['runs', 'tags', 'alerts'].map((reason) => value(all, 'rlwatch_metrics_dropped_series', { reason })!);
    const drops = (all: Sample[]): number[] =>
      ['runs', 'tags', 'alerts'].map((reason) => value(all, 'rlwatch_metrics_drops_total', { reason })!);
    expect(dropped(all)).toEqual([19, 3, 1]);
    expect(drops(all)).toEqual([1, 1, 1]);
    // The same cut scrape after scrape: the gauge says the same, the counter does not move (it no longer
    // depends on how many scrapers there are), and nothing more is logged.
    all = await scrape(m);
    all = await scrape(m);
    expect(dropped(all)).toEqual([19, 3, 1]);
    expect(drops(all)).toEqual([1, 1, 1]);
    expect(log).toEqual([
      '/metrics leaves out 1 run (the most recently active are kept; --metrics-max-runs): old',
      '/metrics leaves out 1 tag (the first per run by name are kept; --metrics-max-tags): new: c',
      '/metrics leaves out 1 alert series (active ones first): new: non-finite (c) warning',
    ]);
    // A new tag past the bound is a new cut: counted and logged once; one that is no longer cut leaves the gauge.
    src.points.get('new')!.set('d', { count: 1, lastStep: 1, lastWallTime: 1, lastValue: 1 });
    src.alerts = src.alerts.slice(0, 2);
    all = await scrape(m);
    expect(dropped(all)).toEqual([19, 6, 0]);
    expect(drops(all)).toEqual([1, 2, 1]);
    expect(log.slice(3)).toEqual([
      '/metrics leaves out 1 tag (the first per run by name are kept; --metrics-max-tags): new: d',
    ]);
  });

  test('a 10k-tag run costs at most maxTagsPerRun × 3 series', async () => {
    const src = new FakeSource();
    const tags: Record<string, [number, number, number]> = {};
    for (let i = 0; i < 10_000; i++) tags[`layer_${i}/grad_norm`] = [i, i, i];
    src.addRun('wide', tags);
    const log: string[] = [];
    const all = await scrape(new MetricsExposition(src, { clock: () => NOW, log: (l) => log.push(l) }));
    expect(samples(all, 'rlwatch_scalar')).toHaveLength(256);
    expect(value(all, 'rlwatch_metrics_dropped_series', { reason: 'tags' })).toBe((10_000 - 256) * 3);
    expect(value(all, 'rlwatch_metrics_drops_total', { reason: 'tags' })).toBe(10_000 - 256);
    // One line, ten names and the count of the rest (never 9,744 names).
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(
      /^\/metrics leaves out 9744 tags .*: wide: layer_\d+\/grad_norm(, wide: \S+){9}, and 9734 more$/,
    );
  });

  test('long label values are cut but stay distinct; quotes, backslashes and newlines survive', async () => {
    const src = new FakeSource();
    const long = 'x'.repeat(400);
    src.addRun('r', { [`${long}1`]: [1, 1, 1], [`${long}2`]: [1, 1, 2], 'odd "tag"\\\nname': [1, 1, 3] });
    const all = await scrape(new MetricsExposition(src, { clock: () => NOW }));
    const tags = samples(all, 'rlwatch_scalar').map((s) => s.labels.tag!);
    expect(new Set(tags).size).toBe(3);
    expect(tags.every((t) => t.length <= 256)).toBe(true);
    expect(tags).toContain('odd "tag"\\\nname');
  });

  test('GPUs with DCGM exporter label names, in Prometheus units; a stale sample is not exposed', async () => {
    const src = new FakeSource();
    const snap: SystemSnapshot = {
      t: NOW - 1000,
      cpuPct: 25,
      memPct: 50,
      memUsedMiB: 8192,
      memTotalMiB: 16384,
      gpus: [gpu(0), gpu(1, { temperatureC: null })],
      nvidia: { state: 'ok', gpuCount: 2, driverVersion: '550.54' },
      nvidiaChanged: false,
      appleGpu: null,
      trainingProcesses: [
        {
          run: 'ppo',
          processes: [
            { pid: 10, evidence: 'open-files', onGpu: true },
            { pid: 11, evidence: 'cwd', onGpu: false },
          ],
          cpuPct: 150,
          rssMiB: 2048,
        },
      ],
      processExits: [],
    };
    src.snapshot = snap;
    let clock = NOW;
    const m = new MetricsExposition(src, { clock: () => clock, hostname: 'node-7' });
    let all = await scrape(m);
    const g0 = samples(all, 'rlwatch_gpu_utilization_ratio', { gpu: '0' })[0]!;
    expect(g0.labels).toEqual({
      gpu: '0',
      UUID: 'GPU-0',
      device: 'nvidia0',
      modelName: 'NVIDIA H100 80GB HBM3',
      pci_bus_id: '00000000:00:00.0',
      Hostname: 'node-7',
    });
    expect(g0.value).toBe(0.87);
    expect(value(all, 'rlwatch_gpu_memory_used_bytes', { gpu: '1' })).toBe(1024 * 1024 * 1024);
    expect(value(all, 'rlwatch_gpu_power_usage_watts', { gpu: '0' })).toBe(310.5);
    expect(value(all, 'rlwatch_gpu_temperature_celsius', { gpu: '0' })).toBe(61);
    expect(samples(all, 'rlwatch_gpu_temperature_celsius', { gpu: '1' })).toEqual([]);
    expect(value(all, 'rlwatch_cpu_utilization_ratio')).toBe(0.25);
    expect(value(all, 'rlwatch_memory_total_bytes')).toBe(16 * 1024 ** 3);
    expect(value(all, 'rlwatch_training_process_cpu_ratio', { run: 'ppo' })).toBe(1.5);
    expect(value(all, 'rlwatch_training_processes', { run: 'ppo' })).toBe(2);
    clock = NOW + 120_000;
    all = await scrape(m);
    expect(samples(all, 'rlwatch_gpu_utilization_ratio')).toEqual([]);
    expect(samples(all, 'rlwatch_cpu_utilization_ratio')).toEqual([]);
  });

  test("rlwatch_node_info names the agent's job and node (only with --job), its values bounded like any label", async () => {
    const src = new FakeSource();
    const m = new MetricsExposition(src, { clock: () => NOW });
    const { body } = await m.scrape();
    expect(body).toContain('# TYPE rlwatch_node_info gauge');
    expect(samples(parseExposition(body), 'rlwatch_node_info')).toEqual([]);

    src.identity = { job: 'grpo "70b"\\x', node: 'gpu-node-3' };
    let all = await scrape(m);
    expect(samples(all, 'rlwatch_node_info').map((s) => [s.labels, s.value])).toEqual([
      [{ rlwatch_job: 'grpo "70b"\\x', node: 'gpu-node-3' }, 1],
    ]);
    // A name longer than a label may hold is cut and hashed, as a run name would be.
    src.identity = { job: 'j'.repeat(300), node: 'n' };
    all = await scrape(m);
    const [info] = samples(all, 'rlwatch_node_info');
    expect(info!.labels.rlwatch_job).toMatch(/^j+…#[0-9a-f]{8}$/);
    expect(info!.labels.rlwatch_job!.length).toBeLessThanOrEqual(256);
  });

  test("a head's job alerts (JobMonitor's, in activeAlerts) are rlwatch_alert series RlwatchHealthAlert forwards", async () => {
    // A head with three nodes' runs of job grpo: node-c wrote nothing for 5 min while the others write.
    const node = (host: string, name: string, lastEventAt: number): RunInfo =>
      run(`${host}//ppo`, { host, job: 'grpo', node: name, lastEventAt, fileWrittenAt: lastEventAt });
    const runs = [
      node('h1:9477', 'node-a', NOW - 5000),
      node('h2:9477', 'node-b', NOW - 5000),
      node('h3:9477', 'node-c', NOW - 300_000),
    ];
    const monitor = new JobMonitor({ clock: () => NOW, jobsChanged: () => {}, alertChanged: () => {} });
    monitor.update(runs, () => ({ connected: true, gpuUtilPct: null }));
    const src = new FakeSource();
    src.runList = runs;
    src.alerts = monitor.activeAlerts();
    const m = new MetricsExposition(src, { clock: () => NOW });
    let all = await scrape(m);
    const silent = { run: 'h3:9477//ppo', rule: 'job-node-silent', severity: 'critical', tag: '' };
    expect(samples(all, 'rlwatch_alert').map((s) => [s.labels, s.value])).toEqual([[silent, 1]]);
    expect(samples(all, 'rlwatch_alert_info')[0]!.labels.message).toMatch(
      /^Node node-c of job grpo has written nothing for 5m 00s while 2 other nodes kept writing/,
    );
    // node-c writes again: the alert clears and its series reads 0 while the run is listed.
    runs[2] = node('h3:9477', 'node-c', NOW - 1000);
    monitor.update(runs, () => ({ connected: true, gpuUtilPct: null }));
    src.runList = runs;
    src.alerts = monitor.activeAlerts();
    all = await scrape(m);
    expect(samples(all, 'rlwatch_alert').map((s) => [s.labels, s.value])).toEqual([[silent, 0]]);
  });
});
