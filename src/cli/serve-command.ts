// `rlwatch serve DIR`: serve the UI for a folder until Ctrl-C.

import { serveFolder } from './host';
import { parseFlags, parseNumber, readableFolder, untilSignal, UsageError } from './usage';

export async function runServe(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    host: { type: 'string' },
    port: { type: 'string' },
    poll: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('serve needs exactly one folder: rlwatch serve DIR');
  const dir = await readableFolder(positionals[0]!);
  const port = parseNumber('port', values.port as string | undefined, 0, 65535);
  const host = values.host as string | undefined;
  const served = await serveFolder(dir, { host, port, poll: values.poll === true });
  process.stdout.write(`rlwatch: serving ${dir} at ${served.server.url}\n`);
  if (host !== undefined && host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') {
    process.stderr.write(
      `rlwatch: warning: listening on ${host}; anyone who can reach it and has the token can read these runs\n`,
    );
  }
  await untilSignal();
  await served.close();
  return 0;
}
