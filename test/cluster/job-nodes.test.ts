// One job across three agents (`agent --job`), with the real Prometheus and Alertmanager on deploy/'s files: a frozen
// node (agent and trainer stopped) is paged as its agent unreachable (its writing unknown), never as silent; the others
// are not paged, and it resolves.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli, type CliProcess } from '../e2e/cli-process';
import { ALERTMANAGER, PROMETHEUS, promQuery, requireBinary, type Daemon } from './daemons';
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

const METRICS_TOKEN = 'cluster-test-metrics-token-8910';
const JOB = 'grpo-cluster';
const PAGE = '/rlwatch-page';
const SILENT = 'RlwatchJobNodeSilent';
const DOWN = 'RlwatchAgentDown';
/** The demo's pace: slow enough for three writers on a small machine, far more often than the silence window. */
const RATE = 4;

/** The shipped rules with the job silence judged over seconds instead of minutes: a node is silent after 20 s
 * without a write (shipped: 2 min), an agent down after 10 s of failed scrapes (shipped: 1 min). Each rewrite must
 * find its text, so a change to the shipped rules fails here instead of quietly testing other thresholds. */
function shorterSilence(rules: string): string {
  const rewrites: [from: string, to: string, count: number][] = [
    ['> 120', '> 20', 3],
    ['<= 120', '<= 20', 2],
    ['expr: up{job="rlwatch"} == 0\n        for: 1m', 'expr: up{job="rlwatch"} == 0\n        for: 10s', 1],
  ];
  let out = rules;
  for (const [from, to, count] of rewrites) {
    expect(out.split(from).length - 1, from).toBe(count);
    out = out.replaceAll(from, to);
  }
  return out;
}

interface Node {
  name: string;
  demo: CliProcess;
  agent: CliProcess;
  /** Prometheus's instance label for its agent. */
  instance: string;
}

describe('one job across three agents through Prometheus and Alertmanager', () => {
  const temp: string[] = [];
  const tempDir = (prefix: string): string => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    temp.push(d);
    return d;
  };
  const nodes: Node[] = [];
  let prometheus: Daemon;
  let alertmanager: Alertmanager;
  let webhook: Webhook;

  const notices = (alertname: string, status: string) =>
    webhook.alerts().filter((a) => a.labels.alertname === alertname && a.status === status);

  /** A node: the demo writer in a folder of its own and an agent of the job on it. */
  const startNode = async (name: string): Promise<Node> => {
    const dir = tempDir(`rlwatch-job-${name}-`);
    const demo = runCli(['demo', dir, '--rate', String(RATE), '--steps', '1000000']);
    await demo.waitFor(/writing a simulated PPO run/);
    const agent = runCli(
      ['agent', dir, '--port', '0', '--metrics-token', METRICS_TOKEN, '--job', JOB, '--node', name],
      { ...process.env, RLWATCH_STORE: 'memory' },
    );
    const url = new URL((await agent.waitFor(/agent for \S+ at (http:\/\/127\.0\.0\.1:\d+)\//))[1]!);
    return { name, demo, agent, instance: url.host };
  };

  beforeAll(async () => {
    requireBinary(PROMETHEUS, 'prometheus');
    requireBinary(ALERTMANAGER, 'prometheus-alertmanager');
    webhook = await startWebhook();
    // deploy/alertmanager.yml as shipped (paging route, inhibit rules); the page's resolve goes out within 2 s
    // instead of a minute (paging latency is alert-semantics.test.ts's).
    const am = shippedAlertmanagerConfig();
    const routes = am.route.routes as Record<string, unknown>[];
    routes[0]!.group_interval = '2s';
    const alertmanagerUp = startAlertmanager(tempDir('rlwatch-am-'), am, webhook);
    nodes.push(...(await Promise.all(['node-1', 'node-2', 'node-3'].map(startNode))));
    alertmanager = await alertmanagerUp;
    prometheus = await startPrometheus(tempDir('rlwatch-prom-'), {
      targets: nodes.map((n) => n.instance),
      token: METRICS_TOKEN,
      alertmanagerPort: alertmanager.port,
      rules: shorterSilence,
    });
  });

  afterAll(async () => {
    for (const n of nodes) for (const p of [n.demo, n.agent]) p.child.kill('SIGCONT');
    await prometheus?.stop();
    await alertmanager?.stop();
    await Promise.all(nodes.flatMap((n) => [n.agent.stop(), n.demo.stop()]));
    await webhook?.close();
    for (const d of temp) rmSync(d, { recursive: true, force: true });
  });

  test('every agent is a node of the job in Prometheus, each with its step; none is silent', async () => {
    const members = async (): Promise<string[]> =>
      (await promQuery(prometheus.base, `instance:rlwatch_node_info:last10m{rlwatch_job="${JOB}"}`))
        .map((s) => `${s.metric.node}@${s.metric.instance}`)
        .sort();
    await expect
      .poll(members, { timeout: 30_000, interval: 250 })
      .toEqual(nodes.map((n) => `${n.name}@${n.instance}`).sort());
    await expect
      .poll(async () => (await promQuery(prometheus.base, 'node:rlwatch_step:max > 0')).length, {
        timeout: 30_000,
        interval: 250,
      })
      .toBe(3);
    expect((await prometheusAlerts(prometheus)).filter((a) => a.labels.alertname === SILENT)).toEqual([]);
  });

  test('a frozen node (agent and trainer stopped) is paged as its agent unreachable, naming its node; never as silent', async () => {
    const frozen = nodes[2]!;
    frozen.demo.child.kill('SIGSTOP');
    frozen.agent.child.kill('SIGSTOP');
    await expect
      .poll(() => notices(DOWN, 'firing').length, { timeout: 60_000, interval: 250 })
      .toBeGreaterThan(0);
    const [paged] = notices(DOWN, 'firing');
    expect(paged!.path).toBe(PAGE);
    expect(paged!.labels).toMatchObject({
      instance: frozen.instance,
      severity: 'critical',
      source: 'rlwatch',
    });
    expect(paged!.annotations.summary).toBe(
      `rlwatch agent ${frozen.instance} (node ${frozen.name} of job ${JOB}) is unreachable: whether its runs still write is unknown`,
    );
    // Past the silence window (20 s here) with its writes unknown: still no silent page, in Prometheus or at the webhook.
    await new Promise((r) => setTimeout(r, 25_000));
    expect((await prometheusAlerts(prometheus)).filter((a) => a.labels.alertname === SILENT)).toEqual([]);
    expect(webhook.alerts().filter((a) => a.labels.alertname === SILENT)).toEqual([]);
  }, 120_000);

  test('a node whose trainer stops while its agent answers is paged as silent; its job warnings are held back', async () => {
    const frozen = nodes[2]!;
    frozen.agent.child.kill('SIGCONT');
    await expect
      .poll(() => notices(SILENT, 'firing').length, { timeout: 60_000, interval: 250 })
      .toBeGreaterThan(0);
    const [paged] = notices(SILENT, 'firing');
    expect(paged!.path).toBe(PAGE);
    expect(paged!.labels).toMatchObject({
      instance: frozen.instance,
      rlwatch_job: JOB,
      node: frozen.name,
      severity: 'critical',
      source: 'rlwatch',
    });
    expect(paged!.annotations.summary).toBe(
      `Node ${frozen.name} of job ${JOB} (${frozen.instance}) stopped writing while the other nodes of the job write`,
    );
    expect(paged!.annotations.message).toMatch(/; scrapes of its agent: answered\.$/);
    // Its agent answers again: the agent-down page resolved.
    await expect
      .poll(() => notices(DOWN, 'resolved').map((a) => [a.path, a.labels.instance]), {
        timeout: 30_000,
        interval: 250,
      })
      .toEqual([[PAGE, frozen.instance]]);

    // The real silent critical holds back that node's job warnings (not its other warnings, not another node's).
    const at = (n: Node) => ({ instance: n.instance, job: 'rlwatch', rlwatch_job: JOB, node: n.name });
    const post = await fetch(`${alertmanager.base}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        {
          labels: {
            alertname: 'RlwatchJobNodeGpusIdle',
            severity: 'warning',
            source: 'rlwatch',
            ...at(frozen),
          },
        },
        {
          labels: {
            alertname: 'RlwatchJobNodeGpusIdle',
            severity: 'warning',
            source: 'rlwatch',
            ...at(nodes[0]!),
          },
        },
        {
          labels: {
            alertname: 'RlwatchSeriesDropped',
            severity: 'warning',
            source: 'rlwatch',
            instance: frozen.instance,
            job: 'rlwatch',
            reason: 'tags',
          },
        },
      ]),
    });
    expect(post.status).toBe(200);
    const states = async (): Promise<string[]> =>
      (await alertmanagerAlerts(alertmanager))
        .filter((a) => ['RlwatchJobNodeGpusIdle', 'RlwatchSeriesDropped'].includes(a.labels.alertname ?? ''))
        .map((a) => `${a.labels.alertname} ${a.labels.node ?? a.labels.instance} ${a.status!.state}`)
        .sort();
    await expect
      .poll(states, { timeout: 10_000, interval: 250 })
      .toEqual(
        [
          `RlwatchSeriesDropped ${frozen.instance} active`,
          `RlwatchJobNodeGpusIdle ${nodes[0]!.name} active`,
          `RlwatchJobNodeGpusIdle ${frozen.name} suppressed`,
        ].sort(),
      );

    // The other two nodes kept writing: never silent, in Prometheus or at the webhook.
    const silentNodes = async (): Promise<string[]> =>
      (await prometheusAlerts(prometheus))
        .filter((a) => a.labels.alertname === SILENT)
        .map((a) => `${a.labels.node} ${a.state}`);
    expect(await silentNodes()).toEqual([`${frozen.name} firing`]);
    expect(
      webhook.alerts().filter((a) => a.labels.alertname === SILENT && a.labels.node !== frozen.name),
    ).toEqual([]);
  });

  test('the node resumes (SIGCONT): its silence resolves, and no other node was ever silent', async () => {
    const frozen = nodes[2]!;
    frozen.demo.child.kill('SIGCONT');
    await expect
      .poll(() => notices(SILENT, 'resolved').length, { timeout: 60_000, interval: 250 })
      .toBeGreaterThan(0);
    const resolved = notices(SILENT, 'resolved');
    expect(resolved.map((a) => [a.path, a.labels.node, a.labels.instance])).toEqual([
      [PAGE, frozen.name, frozen.instance],
    ]);
    expect((await prometheusAlerts(prometheus)).filter((a) => a.labels.alertname === SILENT)).toEqual([]);
    expect(
      new Set(
        webhook
          .alerts()
          .filter((a) => a.labels.alertname === SILENT)
          .map((a) => a.labels.node),
      ),
    ).toEqual(new Set([frozen.name]));
  });
});
