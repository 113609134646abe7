// What an on-call engineer relies on, with the real Prometheus and Alertmanager on deploy/'s files: criticals page at
// once, a run's critical holds back its warnings, and a dead agent never resolves a firing alert.

import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli, type CliProcess } from '../e2e/cli-process';
import { ALERTMANAGER, freePort, PROMETHEUS, promQuery, requireBinary, type Daemon } from './daemons';
import {
  alertmanagerAlerts,
  prometheusAlerts,
  shippedAlertmanagerConfig,
  startAlertmanager,
  startPrometheus,
  startWebhook,
  type Alertmanager,
  type Webhook,
} from './stack';

const METRICS_TOKEN = 'cluster-test-metrics-token-4567';
const PAGE = '/rlwatch-page';
const HEADER = 'step,approx_kl,loss,reward\n';

/** CSV rows from `from` to `to`: KL and loss as given (loss may be 'nan'), the reward rising. */
function rows(from: number, to: number, kl: number, loss: number | 'nan'): string {
  let s = '';
  for (let step = from; step <= to; step++) s += `${step},${kl},${loss},${step}\n`;
  return s;
}

describe('alert semantics through Prometheus and Alertmanager', () => {
  const temp: string[] = [];
  const tempDir = (prefix: string): string => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    temp.push(d);
    return d;
  };
  let root: string;
  let agentPort: number;
  let agent: CliProcess;
  let prometheus: Daemon;
  let alertmanager: Alertmanager;
  let webhook: Webhook;

  const startAgent = async (): Promise<CliProcess> => {
    const a = runCli(['agent', root, '--port', String(agentPort), '--metrics-token', METRICS_TOKEN], {
      ...process.env,
      RLWATCH_STORE: 'memory',
    });
    await a.waitFor(/agent for \S+ at http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    return a;
  };
  const bad = (): string => join(root, 'ppo_bad', 'metrics.csv');
  /** Notifications of run ppo_bad's `rule` as the webhook received them. */
  const received = (rule: string, status: string, path?: string) =>
    webhook
      .alerts()
      .filter(
        (a) =>
          a.labels.run === 'ppo_bad' &&
          a.labels.rule === rule &&
          a.status === status &&
          (path === undefined || a.path === path),
      );

  beforeAll(async () => {
    requireBinary(PROMETHEUS, 'prometheus');
    requireBinary(ALERTMANAGER, 'prometheus-alertmanager');
    // ppo_bad: the loss turns NaN at step 21 (non-finite, critical at once) while the KL sits at 1.5× target_kl
    // (kl-above-target, a warning after 3 points). ppo_warn: the same KL warning alone.
    root = tempDir('rlwatch-semantics-');
    for (const [run, loss] of [
      ['ppo_bad', 'nan'],
      ['ppo_warn', 0.5],
    ] as const) {
      mkdirSync(join(root, run));
      writeFileSync(join(root, run, 'config.json'), JSON.stringify({ target_kl: 0.02 }));
      writeFileSync(
        join(root, run, 'metrics.csv'),
        HEADER + rows(1, 20, 0.005, 0.5) + rows(21, 40, 0.03, loss),
      );
    }
    webhook = await startWebhook();
    // deploy/alertmanager.yml as shipped; only the warnings' first wait is shortened (30 s → 1 s). The paging
    // route's own timings are the shipped ones, and the root's group_interval (5 m) stays: a critical that
    // inherited it would wait for it.
    const am = shippedAlertmanagerConfig();
    am.route.group_wait = '1s';
    const alertmanagerUp = startAlertmanager(tempDir('rlwatch-am-'), am, webhook);
    agentPort = await freePort();
    agent = await startAgent();
    alertmanager = await alertmanagerUp;
    prometheus = await startPrometheus(tempDir('rlwatch-prom-'), {
      targets: [`127.0.0.1:${agentPort}`],
      token: METRICS_TOKEN,
      alertmanagerPort: alertmanager.port,
    });
  });

  afterAll(async () => {
    await prometheus?.stop();
    await alertmanager?.stop();
    await agent?.stop();
    await webhook?.close();
    for (const d of temp) rmSync(d, { recursive: true, force: true });
  });

  test("a critical is paged in a group of its own, and it holds back its run's warning (another run's goes out)", async () => {
    await expect
      .poll(() => received('non-finite', 'firing', PAGE).length, { timeout: 60_000, interval: 200 })
      .toBeGreaterThan(0);
    const post = webhook.posts.find(
      (p) => p.path === PAGE && p.alerts.some((a) => a.labels.rule === 'non-finite'),
    )!;
    expect(post.groupLabels).toMatchObject({ run: 'ppo_bad', rule: 'non-finite' });

    // The KL warning of ppo_bad is inhibited by its run's critical: Alertmanager says so.
    const klWarning = async () =>
      (await alertmanagerAlerts(alertmanager)).find(
        (a) =>
          a.labels.run === 'ppo_bad' &&
          a.labels.rule === 'kl-above-target' &&
          a.labels.severity === 'warning',
      );
    await expect.poll(async () => (await klWarning())?.status?.state, { timeout: 30_000 }).toBe('suppressed');
    expect((await klWarning())!.status!.inhibitedBy.length).toBe(1);
    // ppo_warn's warning, with no critical on its run, reaches the webhook; ppo_bad's never did.
    await expect
      .poll(
        () =>
          webhook
            .alerts()
            .some(
              (a) =>
                a.labels.run === 'ppo_warn' && a.labels.rule === 'kl-above-target' && a.status === 'firing',
            ),
        { timeout: 30_000, interval: 200 },
      )
      .toBe(true);
    expect(received('kl-above-target', 'firing')).toEqual([]);
  });

  test('a second critical on the same run is paged within a minute, not held back by the first one', async () => {
    // The KL goes 50× past target_kl: the warning escalates to a critical on the first such point.
    appendFileSync(bad(), rows(41, 45, 1, 'nan'));
    await expect
      .poll(() => received('kl-above-target', 'firing', PAGE).length, { timeout: 60_000, interval: 200 })
      .toBeGreaterThan(0);
    const post = webhook.posts.find(
      (p) => p.path === PAGE && p.alerts.some((a) => a.labels.rule === 'kl-above-target'),
    )!;
    expect(post.groupLabels).toMatchObject({ run: 'ppo_bad', rule: 'kl-above-target' });
    expect(post.alerts.map((a) => a.labels.severity)).toEqual(['critical']);
  });

  test('a killed agent never resolves its firing criticals; they resolve when the alert truly clears', async () => {
    const firing = async (rule: string): Promise<boolean> =>
      (await prometheusAlerts(prometheus)).some(
        (a) =>
          a.labels.alertname === 'RlwatchHealthAlert' &&
          a.labels.run === 'ppo_bad' &&
          a.labels.rule === rule &&
          a.labels.severity === 'critical' &&
          a.state === 'firing',
      );
    await expect.poll(() => firing('kl-above-target'), { timeout: 20_000 }).toBe(true);
    expect(await firing('non-finite')).toBe(true);

    agent.child.kill('SIGKILL');
    await agent.stop();
    // Five failed scrapes (each marks the agent's series stale) and as many rule evaluations after them.
    const failedScrapes = async (): Promise<number> =>
      Number(
        (
          await promQuery(
            prometheus.base,
            'count_over_time(up{job="rlwatch"}[1m]) - sum_over_time(up{job="rlwatch"}[1m])',
          )
        )[0]?.value?.[1] ?? 0,
      );
    await expect.poll(failedScrapes, { timeout: 30_000, interval: 250 }).toBeGreaterThanOrEqual(5);
    expect(await firing('non-finite')).toBe(true);
    expect(await firing('kl-above-target')).toBe(true);
    const active = (await alertmanagerAlerts(alertmanager)).filter(
      (a) => a.labels.run === 'ppo_bad' && a.labels.severity === 'critical',
    );
    expect(active.map((a) => [a.labels.rule, a.status!.state]).sort()).toEqual([
      ['kl-above-target', 'active'],
      ['non-finite', 'active'],
    ]);

    // The agent comes back with the alerts still on (it reads the run again): still firing, nothing resolved.
    agent = await startAgent();
    await expect
      .poll(async () => (await promQuery(prometheus.base, 'rlwatch_alert{rule="non-finite"} == 1')).length, {
        timeout: 30_000,
        interval: 250,
      })
      .toBe(1);
    expect(await firing('non-finite')).toBe(true);
    expect(received('non-finite', 'resolved')).toEqual([]);
    expect(received('kl-above-target', 'resolved', PAGE)).toEqual([]);

    // Now the run recovers: finite losses and a KL under target clear both; the pager hears it within a minute.
    appendFileSync(bad(), rows(46, 60, 0.005, 0.5));
    await expect
      .poll(() => received('non-finite', 'resolved', PAGE).length, { timeout: 90_000, interval: 500 })
      .toBeGreaterThan(0);
    await expect
      .poll(() => received('kl-above-target', 'resolved', PAGE).length, { timeout: 90_000, interval: 500 })
      .toBeGreaterThan(0);
  }, 240_000);
});
