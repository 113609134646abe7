// deploy/: Prometheus, Alertmanager and Grafana files check with the tools themselves and name only real metrics.

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { MetricsExposition } from '../../src/core/metrics/exposition';
import { parseExposition } from '../core/metrics/exposition-text';
import { AMTOOL, check, PROMTOOL, requireBinary } from './daemons';

const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy');
const read = (f: string): string => readFileSync(join(DEPLOY, f), 'utf8');

/** Every metric family the exposition declares (from its HELP lines), counters with their _total name, and the
 * label names it writes (an agent of a job: rlwatch_node_info's rlwatch_job). */
async function exposedNames(): Promise<Set<string>> {
  const agentOfAJob = {
    runs: () => [],
    lastPoints: () => new Map(),
    activeAlerts: () => [],
    thresholdValues: () => ({}),
    latestSystemSample: () => null,
    identity: { job: 'grpo', node: 'gpu-node-1' },
  };
  const { body } = await new MetricsExposition(agentOfAJob).scrape();
  const samples = parseExposition(body);
  expect(samples.length).toBeGreaterThan(0);
  return new Set([
    ...[...body.matchAll(/^# HELP (\S+)/gm)].map((m) => m[1]!),
    ...samples.flatMap((s) => Object.keys(s.labels)),
  ]);
}

describe('deploy/', () => {
  test('promtool accepts the scrape config and the alerting rules', () => {
    const promtool = requireBinary(PROMTOOL, 'prometheus');
    const config = check(promtool, ['check', 'config', join(DEPLOY, 'prometheus.yml')]);
    expect(config.output).toContain('is valid prometheus config file syntax');
    expect(config.status).toBe(0);
    const rules = check(promtool, ['check', 'rules', join(DEPLOY, 'rlwatch-alerts.rules.yml')]);
    expect(rules.output).toContain('SUCCESS: 10 rules found');
    expect(rules.status).toBe(0);
  });

  test('promtool: a firing health alert survives a dead agent and resolves when the agent says it cleared; the job rules fire and stay quiet as they should', () => {
    const promtool = requireBinary(PROMTOOL, 'prometheus');
    const r = check(promtool, ['test', 'rules', join(import.meta.dirname, 'rlwatch-alerts.test.yml')]);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  test('amtool accepts the Alertmanager example', () => {
    const amtool = requireBinary(AMTOOL, 'prometheus-alertmanager');
    const r = check(amtool, ['check-config', join(DEPLOY, 'alertmanager.yml')]);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  test('amtool: criticals go to the paging receiver, agent-down too (a page of its own), warnings to the webhook', () => {
    const amtool = requireBinary(AMTOOL, 'prometheus-alertmanager');
    // The receiver is the first line (a warning about --config.file may follow on stderr).
    const route = (...labels: string[]): string =>
      check(amtool, [
        'config',
        'routes',
        'test',
        `--config.file=${join(DEPLOY, 'alertmanager.yml')}`,
        ...labels,
      ]).output.split('\n')[0]!;
    const alert = ['alertname=RlwatchHealthAlert', 'source=rlwatch', 'run=ppo', 'rule=non-finite'];
    expect(route(...alert, 'severity=critical')).toBe('rlwatch-page');
    expect(route(...alert, 'severity=warning')).toBe('rlwatch-webhook');
    expect(route('alertname=RlwatchAgentDown', 'source=rlwatch', 'severity=critical')).toBe('rlwatch-page');
    const node = ['source=rlwatch', 'instance=n3:9477', 'rlwatch_job=grpo', 'node=node-3'];
    expect(route('alertname=RlwatchJobNodeSilent', ...node, 'severity=critical')).toBe('rlwatch-page');
    expect(route('alertname=RlwatchJobStepSkew', ...node, 'severity=warning')).toBe('rlwatch-webhook');
    expect(route('alertname=RlwatchJobNodeGpusIdle', ...node, 'severity=warning')).toBe('rlwatch-webhook');
  });

  test('every rlwatch_* name in deploy/ is a metric or label the exposition serves', async () => {
    const names = await exposedNames();
    const used = new Set<string>();
    // A recorded series (`instance:rlwatch_node_info:last10m`) is the rules' own name, not the exposition's.
    for (const f of readdirSync(DEPLOY))
      for (const m of read(f).matchAll(/(?<![\w:])rlwatch_[a-z_]+(?![\w:])/g)) used.add(m[0]);
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((n) => !names.has(n))).toEqual([]);
  });

  test('the rules forward rlwatch_alert with run, tag, message and advice; the dashboard has the RL health panels', () => {
    const rules = parseYaml(read('rlwatch-alerts.rules.yml')) as {
      groups: { rules: { alert: string; expr: string; annotations: Record<string, string> }[] }[];
    };
    const forward = rules.groups[0]!.rules.find((r) => r.alert === 'RlwatchHealthAlert')!;
    // rlwatch_alert, or its own firing ALERTS carried over while the agent cannot say (rlwatch-alerts.test.yml).
    expect(forward.expr).toMatch(/^rlwatch_alert == 1\nor on\(/);
    expect(forward.expr).toContain('up == 0');
    expect(Object.keys(forward.annotations)).toEqual(
      expect.arrayContaining(['summary', 'run', 'tag', 'message', 'advice', 'threshold']),
    );
    const dash = JSON.parse(read('grafana-dashboard.json')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const exprOf = (title: string): string =>
      dash.panels.find((p) => p.title.startsWith(title))!.targets[0]!.expr;
    expect(exprOf('Active alerts')).toContain('rlwatch_alert_info');
    expect(exprOf('Scalars')).toContain('rlwatch_scalar{');
    expect(exprOf('GPU utilisation')).toContain('rlwatch_gpu_utilization_ratio');
  });

  test('the systemd unit and the container recipe start `rlwatch agent` with a separate metrics bind', () => {
    const unit = read('rlwatch-agent.service');
    expect(unit).toMatch(/^ExecStart=\S*rlwatch agent \S+ .*--metrics-port \d+/m);
    expect(unit).toMatch(/^EnvironmentFile=/m);
    expect(unit).toMatch(/^Environment=RLWATCH_STORE=/m);
    const recipe = read('Containerfile');
    expect(recipe).toMatch(/^ENTRYPOINT \[.*"agent", "\/runs".*"--metrics-port", "\d+"\]$/m);
  });
});
