// The /metrics flags `serve` and `agent` share: --metrics-token (or RLWATCH_METRICS_TOKEN), --metrics-host/--metrics-port.

import type { MetricsServeOptions } from './host';
import { parseNumber, UsageError } from './usage';

export const METRICS_FLAGS = {
  'metrics-token': { type: 'string' },
  'metrics-host': { type: 'string' },
  'metrics-port': { type: 'string' },
  'metrics-max-runs': { type: 'string' },
  'metrics-max-tags': { type: 'string' },
} as const;

/** Shortest bearer token accepted: a guessable one would open every run's numbers to the network. */
const MIN_TOKEN_CHARS = 16;

/**
 * What the flags ask for: a token on the main port, a separate bind (open unless a token is also set), both,
 * or neither (null: /metrics answers 404 with a hint).
 */
export function metricsOptions(
  values: Record<string, string | boolean | undefined>,
  env: NodeJS.ProcessEnv = process.env,
): MetricsServeOptions | null {
  const token = (values['metrics-token'] as string | undefined) ?? env.RLWATCH_METRICS_TOKEN ?? null;
  if (token !== null && !new RegExp(`^[\\x21-\\x7e]{${MIN_TOKEN_CHARS},512}$`).test(token))
    throw new UsageError(
      `the metrics token must be ${MIN_TOKEN_CHARS} to 512 visible ASCII characters (e.g. openssl rand -hex 24)`,
    );
  const host = values['metrics-host'] as string | undefined;
  const port = parseNumber('metrics-port', values['metrics-port'] as string | undefined, 0, 65535);
  if (host !== undefined && port === undefined)
    throw new UsageError('--metrics-host needs --metrics-port (a fixed port for the scraper)');
  const bind = port !== undefined ? { host: host ?? '127.0.0.1', port } : undefined;
  const maxRuns = parseNumber(
    'metrics-max-runs',
    values['metrics-max-runs'] as string | undefined,
    1,
    100_000,
  );
  const maxTagsPerRun = parseNumber(
    'metrics-max-tags',
    values['metrics-max-tags'] as string | undefined,
    1,
    100_000,
  );
  if (token === null && bind === undefined) {
    if (maxRuns !== undefined || maxTagsPerRun !== undefined)
      throw new UsageError(
        '--metrics-max-runs/--metrics-max-tags need /metrics on: --metrics-token or --metrics-port',
      );
    return null;
  }
  const limits = {
    ...(maxRuns !== undefined ? { maxRuns } : {}),
    ...(maxTagsPerRun !== undefined ? { maxTagsPerRun } : {}),
  };
  return { token, ...(bind ? { bind } : {}), ...(Object.keys(limits).length > 0 ? { limits } : {}) };
}

/** The line printed once /metrics listens: where to scrape and how. */
export function metricsLine(url: string | null, opts: MetricsServeOptions | null): string {
  if (url === null || opts === null) return '';
  const how = opts.token !== null ? 'Authorization: Bearer <the metrics token>' : 'open, no token';
  return `rlwatch: Prometheus metrics at ${url} (${how})\n`;
}
