// `rlwatch open [DIR]`: the desktop app; where it cannot start, the same UI served on 127.0.0.1 instead.

import { demoAndMaybeServe } from './demo-command';
import { launchElectron } from './electron-launch';
import { serveFolder } from './host';
import { parseFlags, readableFolder, untilSignal, UsageError } from './usage';

export async function runOpen(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags(args, { serve: { type: 'boolean' } });
  if (positionals.length > 1) throw new UsageError('open takes at most one folder: rlwatch open [DIR]');
  const dir = positionals[0] !== undefined ? await readableFolder(positionals[0]) : undefined;
  if (values.serve !== true) {
    const outcome = await launchElectron(dir);
    if (outcome.kind === 'exited') return outcome.code;
    process.stdout.write(`rlwatch: ${outcome.reason}; serving the same UI in your browser instead.\n`);
  }
  if (!dir) return demoAndMaybeServe(undefined, { serve: true });
  const served = await serveFolder(dir, {});
  process.stdout.write(`rlwatch: serving ${dir} at ${served.server.url}\n`);
  await untilSignal();
  await served.close();
  return 0;
}
