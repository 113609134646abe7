// `rlwatch demo [DIR]`: write the simulated run live, optionally serving it, until N steps or Ctrl-C.

import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startDemo } from '../core/demo/demo-writer';
import { serveFolder } from './host';
import { parseFlags, parseNumber, untilSignal, UsageError } from './usage';

export async function runDemo(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    steps: { type: 'string' },
    rate: { type: 'string' },
    serve: { type: 'boolean' },
    port: { type: 'string' },
  });
  if (positionals.length > 1) throw new UsageError('demo takes at most one folder: rlwatch demo [DIR]');
  const steps = parseNumber('steps', values.steps as string | undefined, 1, 10_000_000);
  const rateHz = parseNumber('rate', values.rate as string | undefined, 0.1, 1000);
  const port = parseNumber('port', values.port as string | undefined, 0, 65535);
  return demoAndMaybeServe(positionals[0], { steps, rateHz, serve: values.serve === true, port });
}

/** Shared with `open`'s fallback: a demo folder, written live, served when asked. */
export async function demoAndMaybeServe(
  dirArg: string | undefined,
  o: { steps?: number | undefined; rateHz?: number | undefined; serve: boolean; port?: number | undefined },
): Promise<number> {
  let dir: string;
  try {
    dir = dirArg ? resolve(dirArg) : mkdtempSync(join(tmpdir(), 'rlwatch-demo-'));
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new UsageError(
      `cannot create the demo folder: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  process.stdout.write(`${dir}\n`);
  const demo = startDemo({
    dir,
    ...(o.steps !== undefined ? { steps: o.steps } : {}),
    ...(o.rateHz !== undefined ? { rateHz: o.rateHz } : {}),
  });
  process.stdout.write(`rlwatch: writing a simulated PPO run into ${demo.runDir} (Ctrl-C to stop)\n`);
  const served = o.serve
    ? await serveFolder(dir, { ...(o.port !== undefined ? { port: o.port } : {}) })
    : null;
  if (served) process.stdout.write(`rlwatch: serving the demo at ${served.server.url}\n`);
  // Serving keeps going after the demo finishes; writing alone ends with the last step.
  await (served ? untilSignal() : Promise.race([demo.done, untilSignal()]));
  await demo.stop();
  await served?.close();
  return 0;
}
