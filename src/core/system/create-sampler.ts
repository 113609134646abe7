// Wires the real sources (systeminformation, nvidia-smi, ioreg/macmon, /proc) into a SystemSampler for this platform.

import { AppleSource } from './apple-source';
import { readHost, systeminformationFns } from './host';
import type { HostInfoFns } from './host';
import { NvidiaSmi } from './nvidia-smi';
import type { NvidiaSmiOptions } from './nvidia-smi';
import { NvidiaSource } from './nvidia-source';
import type { NvidiaSourceOptions } from './nvidia-source';
import { NvidiaStream } from './nvidia-stream';
import type { Spawner } from './run-command';
import { realClock } from './clock';
import { SystemSampler } from './sampler';
import type { Clock } from './clock';
import type { SamplerOptions } from './sampler';
import { TrainingProcessTracker } from './training-process';

export interface CreateSamplerOptions extends SamplerOptions {
  platform?: NodeJS.Platform;
  spawner?: Spawner;
  env?: NodeJS.ProcessEnv;
  hostInfo?: HostInfoFns;
  nvidia?: Omit<NvidiaSmiOptions, 'spawner' | 'env' | 'now'> &
    Omit<NvidiaSourceOptions, 'now' | 'stream'> & {
      /** `-lms` interval of the long-lived fast query (default: the sampling interval); 0 = spawn a CSV query each tick. */
      streamIntervalMs?: number;
      /** No line from the stream for this long: GPU fields null, status failing, stream restarted (default 3000). */
      staleMs?: number;
    };
  procRoot?: string;
  /** Pids never taken for a run's training job: ours and our parent's by default; add any worker that tails the run files. */
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
  const streamIntervalMs = options.nvidia?.streamIntervalMs ?? options.intervalMs ?? 1000;
  const stream =
    platform === 'darwin' || streamIntervalMs <= 0
      ? null
      : new NvidiaStream({
          command: options.nvidia?.command,
          env: options.env,
          spawner: options.spawner,
          now,
          intervalMs: streamIntervalMs,
          staleMs: options.nvidia?.staleMs,
        });
  const nvidia =
    platform === 'darwin'
      ? null
      : new NvidiaSource(
          new NvidiaSmi({ ...options.nvidia, spawner: options.spawner, env: options.env, now }),
          {
            ...options.nvidia,
            now,
            stream,
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
