// Benchmarks' `rlwatch serve` of a folder (built CLI, memory store): its page URL and a stop that waits for exit.

import { runCli } from '../../test/e2e/cli-process';
import { servedUrl } from '../../test/e2e/demo-server';

export interface Served {
  url: string;
  /** The serve process's id (its CPU time is read from /proc). */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** `nodeArgs`: node's own flags for the serve process (`--cpu-prof`). */
export async function serveFolder(dir: string, nodeArgs: readonly string[] = []): Promise<Served> {
  const serve = runCli(['serve', dir, '--port', '0'], { ...process.env, RLWATCH_STORE: 'memory' }, nodeArgs);
  const url = await servedUrl(serve, 60_000);
  return { url, pid: serve.child.pid, stop: async () => void (await serve.stop()) };
}
