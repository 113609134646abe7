// Wires the real sources (systeminformation, nvidia-smi, ioreg/macmon, /proc) into a SystemSampler for this platform.

import { AppleSource } from './apple-source';
import { readHost, systeminformationFns } from './host';
import type { HostInfoFns } from './host';
import { NvidiaSmi } from './nvidia-smi';
import type { NvidiaSmiOptions } from './nvidia-smi';
import { NvidiaSource } from './nvidia-source';
import type { NvidiaSourceOptions } from './nvidia-source';
import type { Spawner } from './run-command';
import { SystemSampler, realClock } from './sampler';
import type { Clock, SamplerOptions } from './sampler';
import { TrainingProcessTracker } from './training-process';

export interface CreateSamplerOptions extends SamplerOptions {
  platform?: NodeJS.Platform;
  spawner?: Spawner;
  env?: NodeJS.ProcessEnv;
  hostInfo?: HostInfoFns;
  nvidia?: Omit<NvidiaSmiOptions, 'spawner' | 'env' | 'now'> & Omit<NvidiaSourceOptions, 'now'>;
  procRoot?: string;
  /** Pids never taken for the training job: ours by default; add any worker that tails the run files. */
  excludePids?: number[];
  useMacmon?: boolean;
}

export function createSystemSampler(options: CreateSamplerOptions = {}): SystemSampler {
  const clock: Clock = options.clock ?? realClock;
  const platform = options.platform ?? process.platform;
  const now = () => clock.now();
  let hostFns: Promise<HostInfoFns> | null = options.hostInfo ? Promise.resolve(options.hostInfo) : null;
  const host = async () => readHost(await (hostFns ??= systeminformationFns(platform, options.procRoot)));
  // NVIDIA dropped macOS drivers after 10.13; on a Mac the Apple GPU is the one to watch.
  const nvidia =
    platform === 'darwin'
      ? null
      : new NvidiaSource(
          new NvidiaSmi({ ...options.nvidia, spawner: options.spawner, env: options.env, now }),
          {
            ...options.nvidia,
            now,
          },
        );
  const apple =
    platform === 'darwin'
      ? new AppleSource({ spawner: options.spawner, env: options.env, useMacmon: options.useMacmon })
      : null;
  const training = new TrainingProcessTracker({
    now,
    procRoot: options.procRoot,
    excludePids: options.excludePids,
    hasProc: platform === 'linux',
  });
  return new SystemSampler(
    { host, nvidia, apple, training },
    {
      ...options,
      clock,
      nvidiaDisabledMessage: options.nvidiaDisabledMessage ?? 'NVIDIA GPUs are not supported on macOS',
    },
  );
}
