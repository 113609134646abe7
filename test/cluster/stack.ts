// Test helper: deploy/'s Prometheus and Alertmanager files run for real against agents, and the webhook they post to.

import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { ALERTMANAGER, freePort, PROMETHEUS, startDaemon, type Daemon } from './daemons';

export const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy');

export interface WebhookAlert {
  status: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** One notification Alertmanager posted: the receiver's path, its group's labels and its alerts. */
export interface WebhookPost {
  path: string;
  status: string;
  groupLabels: Record<string, string>;
  alerts: WebhookAlert[];
}

export interface Webhook {
  /** The receiver's base URL (no path): each Alertmanager receiver keeps its own path under it. */
  base: string;
  posts: WebhookPost[];
  /** Every alert of every post, in arrival order, with the path it was posted to. */
  alerts(): (WebhookAlert & { path: string })[];
  close(): Promise<void>;
}

/** A webhook receiver on a free loopback port, keeping every notification. */
export async function startWebhook(): Promise<Webhook> {
  const posts: WebhookPost[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const b = JSON.parse(body) as Omit<WebhookPost, 'path'>;
      posts.push({ path: req.url ?? '', status: b.status, groupLabels: b.groupLabels, alerts: b.alerts });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  return {
    base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    posts,
    alerts: () => posts.flatMap((p) => p.alerts.map((a) => ({ ...a, path: p.path }))),
    close: () => new Promise<void>((res) => server.close(() => res())),
  };
}

export interface AlertmanagerConfig {
  route: Record<string, unknown>;
  receivers: { name: string; webhook_configs: { url: string }[] }[];
  inhibit_rules: { equal: string[] }[];
}

/** deploy/alertmanager.yml as shipped. */
export function shippedAlertmanagerConfig(): AlertmanagerConfig {
  return parseYaml(readFileSync(join(DEPLOY, 'alertmanager.yml'), 'utf8')) as AlertmanagerConfig;
}

export type Alertmanager = Daemon & { port: number };

/** Alertmanager on `config`, every webhook URL moved onto `webhook` with its own path kept. */
export async function startAlertmanager(
  dir: string,
  config: AlertmanagerConfig,
  webhook: Webhook,
): Promise<Alertmanager> {
  for (const r of config.receivers)
    for (const w of r.webhook_configs) w.url = webhook.base + new URL(w.url).pathname;
  writeFileSync(join(dir, 'alertmanager.yml'), toYaml(config));
  const port = await freePort();
  const daemon = await startDaemon(
    ALERTMANAGER,
    [
      `--config.file=${join(dir, 'alertmanager.yml')}`,
      `--storage.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
    ],
    port,
    '/-/ready',
  );
  return { ...daemon, port };
}

/** Prometheus on deploy/prometheus.yml and deploy/rlwatch-alerts.rules.yml as shipped, scraping and evaluating every
 * second, with the agents' metrics token, alerting `alertmanagerPort`. `rules` rewrites the rules file's text first
 * (a test's shorter thresholds; the shipped file stays as it is). */
export async function startPrometheus(
  dir: string,
  opts: { targets: string[]; token: string; alertmanagerPort: number; rules?: (text: string) => string },
): Promise<Daemon> {
  writeFileSync(join(dir, 'token'), opts.token);
  let rulesFile = join(DEPLOY, 'rlwatch-alerts.rules.yml');
  if (opts.rules) {
    const text = opts.rules(readFileSync(rulesFile, 'utf8'));
    rulesFile = join(dir, 'rlwatch-alerts.rules.yml');
    writeFileSync(rulesFile, text);
  }
  const prom = parseYaml(readFileSync(join(DEPLOY, 'prometheus.yml'), 'utf8')) as {
    global: Record<string, string>;
    rule_files: string[];
    alerting: { alertmanagers: { static_configs: { targets: string[] }[] }[] };
    scrape_configs: {
      authorization: { credentials_file: string };
      static_configs: { targets: string[] }[];
    }[];
  };
  prom.global = { scrape_interval: '1s', evaluation_interval: '1s' };
  prom.rule_files = [rulesFile];
  prom.alerting.alertmanagers[0]!.static_configs[0]!.targets = [`127.0.0.1:${opts.alertmanagerPort}`];
  prom.scrape_configs[0]!.authorization.credentials_file = join(dir, 'token');
  prom.scrape_configs[0]!.static_configs[0]!.targets = opts.targets;
  writeFileSync(join(dir, 'prometheus.yml'), toYaml(prom));
  const port = await freePort();
  return startDaemon(
    PROMETHEUS,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    port,
    '/-/ready',
  );
}

/** An alert as Prometheus's /api/v1/alerts or Alertmanager's /api/v2/alerts lists it. */
export interface ListedAlert {
  labels: Record<string, string>;
  /** Prometheus: pending | firing. */
  state?: string;
  /** Alertmanager: active | suppressed, and the fingerprints of the alerts inhibiting it. */
  status?: { state: string; inhibitedBy: string[] };
}

/** The alerts Prometheus holds now (pending or firing). */
export async function prometheusAlerts(prometheus: Daemon): Promise<ListedAlert[]> {
  const r = (await (await fetch(`${prometheus.base}/api/v1/alerts`)).json()) as {
    data: { alerts: ListedAlert[] };
  };
  return r.data.alerts;
}

/** The alerts Alertmanager holds now (active, suppressed; not resolved ones). */
export async function alertmanagerAlerts(alertmanager: Alertmanager): Promise<ListedAlert[]> {
  return (await (await fetch(`${alertmanager.base}/api/v2/alerts`)).json()) as ListedAlert[];
}
