// `rlwatch agent DIR`: a node's headless endpoint: the API (serve's WebSocket contract and token URL) and /metrics, no UI.

import { serveFolder } from './host';
import { JOB_FLAGS, jobIdentity } from './job-flags';
import { METRICS_FLAGS, metricsLine, metricsOptions } from './metrics-flags';
import { parseFlags, parseNumber, readableFolder, untilSignal, UsageError } from './usage';
import { warnIfExposed } from './serve-command';

export async function runAgent(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    host: { type: 'string' },
    port: { type: 'string' },
    poll: { type: 'boolean' },
    ...METRICS_FLAGS,
    ...JOB_FLAGS,
  });
  if (positionals.length !== 1) throw new UsageError('agent needs exactly one folder: rlwatch agent DIR');
  const dir = await readableFolder(positionals[0]!);
  const port = parseNumber('port', values.port as string | undefined, 0, 65535);
  const host = values.host as string | undefined;
  const metrics = metricsOptions(values);
  const identity = jobIdentity(values);
  const served = await serveFolder(dir, {
    host,
    port,
    poll: values.poll === true,
    ui: false,
    ...(metrics ? { metrics } : {}),
    ...(identity ? { identity } : {}),
  });
  // The same URL shape as serve: a remote `rlwatch serve` or the app adds it as an endpoint.
  process.stdout.write(`rlwatch: agent for ${dir} at ${served.server.url}\n`);
  if (identity) process.stdout.write(`rlwatch: node ${identity.node} of job ${identity.job}\n`);
  process.stdout.write(
    metricsLine(served.server.metricsUrl, metrics) ||
      'rlwatch: /metrics is off: give --metrics-token TOKEN (or RLWATCH_METRICS_TOKEN) or --metrics-port P\n',
  );
  warnIfExposed(host);
  await untilSignal();
  await served.close();
  return 0;
}
