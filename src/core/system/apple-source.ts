// Apple-silicon GPU sample on macOS: ioreg each tick (no sudo), plus macmon's power/temperature when it is installed.

import type { AppleGpu } from '../../shared/system-types';
import { IOREG_ARGS, parseIoregGpu } from './apple-ioreg';
import { MACMON_ARGS, mergeAppleGpu, parseMacmonOutput } from './apple-macmon';
import { runCommand } from './run-command';
import type { Spawner } from './run-command';

export interface AppleSourceOptions {
  spawner?: Spawner;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Try `macmon pipe` too; dropped for good after the first "not installed". */
  useMacmon?: boolean;
}

export class AppleSource {
  private macmonAvailable: boolean;
  private ioregAvailable = true;

  constructor(private readonly opts: AppleSourceOptions = {}) {
    this.macmonAvailable = opts.useMacmon ?? true;
  }

  async sample(): Promise<AppleGpu | null> {
    const run = (cmd: string, args: readonly string[]) =>
      runCommand(cmd, args, {
        timeoutMs: this.opts.timeoutMs ?? 2000,
        spawner: this.opts.spawner,
        env: this.opts.env,
      });
    const [ioreg, macmon] = await Promise.all([
      this.ioregAvailable ? run('ioreg', IOREG_ARGS) : null,
      this.macmonAvailable ? run('macmon', MACMON_ARGS) : null,
    ]);
    if (ioreg?.kind === 'spawn-error' && ioreg.errno === 'ENOENT') this.ioregAvailable = false;
    if (macmon?.kind === 'spawn-error' && macmon.errno === 'ENOENT') this.macmonAvailable = false;
    const fromIoreg = ioreg?.kind === 'exited' ? parseIoregGpu(ioreg.stdout) : null;
    const fromMacmon = macmon?.kind === 'exited' ? parseMacmonOutput(macmon.stdout) : null;
    return mergeAppleGpu(fromIoreg, fromMacmon);
  }
}
