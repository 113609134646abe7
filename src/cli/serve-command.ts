// `rlwatch serve DIR`: serve the UI for a folder (and the runs of remote rlwatch endpoints) until Ctrl-C, with /metrics when asked.

import { parseEndpointUrl } from '../core/remote/endpoint-url';
import { remoteUrls } from './remote-flags';
import { serveFolder } from './host';
import { JOB_FLAGS, jobIdentity } from './job-flags';
import { METRICS_FLAGS, metricsLine, metricsOptions } from './metrics-flags';
import { parseFlags, parseNumber, readableFolder, repeatedFlag, untilSignal, UsageError } from './usage';

export async function runServe(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    host: { type: 'string' },
    port: { type: 'string' },
    poll: { type: 'boolean' },
    remote: { type: 'string', multiple: true },
    ...METRICS_FLAGS,
    ...JOB_FLAGS,
  });
  if (positionals.length !== 1) throw new UsageError('serve needs exactly one folder: rlwatch serve DIR');
  const dir = await readableFolder(positionals[0]!);
  const port = parseNumber('port', values.port as string | undefined, 0, 65535);
  const host = values.host as string | undefined;
  const remotes = remoteUrls(repeatedFlag(values, 'remote'), process.env.RLWATCH_REMOTES);
  const metrics = metricsOptions(values);
  const identity = jobIdentity(values);
  const served = await serveFolder(dir, {
    host,
    port,
    poll: values.poll === true,
    remotes,
    ...(metrics ? { metrics } : {}),
    ...(identity ? { identity } : {}),
  });
  process.stdout.write(`rlwatch: serving ${dir} at ${served.server.url}\n`);
  for (const r of remotes) process.stdout.write(`rlwatch: following ${parseEndpointUrl(r).shown}\n`);
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
