// `rlwatch serve DIR`: serve the UI for a folder until Ctrl-C (with /metrics when asked).

import { serveFolder } from './host';
import { METRICS_FLAGS, metricsLine, metricsOptions } from './metrics-flags';
import { parseFlags, parseNumber, readableFolder, untilSignal, UsageError } from './usage';

export async function runServe(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    host: { type: 'string' },
    port: { type: 'string' },
    poll: { type: 'boolean' },
    ...METRICS_FLAGS,
  });
  if (positionals.length !== 1) throw new UsageError('serve needs exactly one folder: rlwatch serve DIR');
  const dir = await readableFolder(positionals[0]!);
  const port = parseNumber('port', values.port as string | undefined, 0, 65535);
  const host = values.host as string | undefined;
  const metrics = metricsOptions(values);
  const served = await serveFolder(dir, {
    host,
    port,
    poll: values.poll === true,
    ...(metrics ? { metrics } : {}),
  });
  process.stdout.write(`rlwatch: serving ${dir} at ${served.server.url}\n`);
  process.stdout.write(metricsLine(served.server.metricsUrl, metrics));
  warnIfExposed(host);
  await untilSignal();
  await served.close();
  return 0;
}

/** One stderr line when listening beyond loopback: the token is then all that stands in the way. */
export function warnIfExposed(host: string | undefined): void {
  if (host !== undefined && host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') {
    process.stderr.write(
      `rlwatch: warning: listening on ${host}; anyone who can reach it and has the token can read these runs\n`,
    );
  }
}
