// `rlwatch demo`: writes the simulated run live as a trainer would: event file, metrics CSV, progress JSON.

import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventFileWriter, type HistogramData } from '../tfevents/writer';
import { DEMO_CONFIG, DemoSimulation } from './simulation';

export interface DemoOptions {
  /** Folder to create the run in; the run itself is `<dir>/ppo_demo`. */
  dir: string;
  steps?: number;
  rateHz?: number;
  seed?: number;
  /** Wall time of step 0 in seconds; defaults to now. Later steps advance by 1/rate. */
  startWallTime?: number;
  /** Called after each step is flushed. */
  onStep?: (step: number) => void;
}

export interface RunningDemo {
  runDir: string;
  /** Resolves when all steps are written or `stop()` was called. */
  done: Promise<void>;
  stop(): Promise<void>;
}

export const DEMO_RUN_NAME = 'ppo_demo';
const CSV_COLUMNS = [
  'step',
  'timestamp',
  'reward',
  'reward_mean',
  'absolute_score',
  'delta_score',
  'balance_penalty',
  'temperature',
];

export function startDemo(opts: DemoOptions): RunningDemo {
  const steps = opts.steps ?? 1200;
  const rate = opts.rateHz ?? 4;
  const runDir = join(opts.dir, DEMO_RUN_NAME);
  mkdirSync(runDir, { recursive: true });
  const t0 = opts.startWallTime ?? Date.now() / 1000;
  const sim = new DemoSimulation(opts.seed ?? 42, undefined, steps);
  writeFileSync(join(runDir, 'config.json'), JSON.stringify(DEMO_CONFIG, null, 2) + '\n');
  const events = new EventFileWriter(runDir, { wallTime: t0 });
  events.flush();
  const csvPath = join(runDir, 'training_metrics.csv');
  writeFileSync(csvPath, CSV_COLUMNS.join(',') + '\n');

  let step = 0;
  let timer: NodeJS.Timeout | null = null;
  let finish!: () => void;
  const done = new Promise<void>((res) => (finish = res));

  const writeProgress = (): void => {
    const progress = {
      completed_chunks: Math.floor(step / 100),
      total_chunks: Math.ceil(steps / 100),
      requests_done: step * 64,
      global_step: step,
      max_steps: steps,
      latest_checkpoint: step >= 100 ? `checkpoints/step_${Math.floor(step / 100) * 100}` : null,
      started_at: new Date(t0 * 1000).toISOString(),
      updated_at: new Date((t0 + step / rate) * 1000).toISOString(),
    };
    // Write then rename, as careful trainers do, so readers never see half a file.
    const tmp = join(runDir, '.training_progress.json.tmp');
    writeFileSync(tmp, JSON.stringify(progress, null, 2));
    renameSync(tmp, join(runDir, 'training_progress.json'));
  };

  const tick = (): void => {
    const wall = t0 + step / rate;
    const m = sim.step(step);
    events.scalars(
      step,
      Object.entries(m.scalars).map(([tag, value]) => ({ tag, value })),
      'simple',
      wall,
    );
    if (step % 10 === 0)
      events.histogram(step, 'Actions/replica_0', histogramOf(m.scalars.entropy ?? 1), wall);
    events.flush();
    appendFileSync(
      csvPath,
      [step, wall.toFixed(3), ...CSV_COLUMNS.slice(2).map((c) => m.csv[c] ?? '')].join(',') + '\n',
    );
    if (step % 10 === 0 || step === steps - 1) writeProgress();
    opts.onStep?.(step);
    step++;
    if (step >= steps) stopNow();
  };

  const stopNow = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
    writeProgress();
    events.close();
    finish();
  };

  tick();
  if (step < steps) timer = setInterval(tick, 1000 / rate);
  return {
    runDir,
    done,
    stop: async () => {
      if (timer) stopNow();
      await done;
    },
  };
}

/** A plausible action histogram whose spread follows the policy's entropy. */
function histogramOf(entropy: number): HistogramData {
  const limits = [0.5, 1.5, 2.5, 3.5];
  const spread = Math.max(0.05, entropy / 1.6);
  const weights = limits.map((_, i) => Math.exp(-((i - 1.5) ** 2) / (2 * spread * spread)));
  const total = weights.reduce((a, b) => a + b, 0);
  const bucket = weights.map((w) => Math.round((w / total) * 64));
  const num = bucket.reduce((a, b) => a + b, 0);
  const sum = bucket.reduce((a, b, i) => a + b * i, 0);
  const sumSquares = bucket.reduce((a, b, i) => a + b * i * i, 0);
  return { min: 0, max: 3, num, sum, sumSquares, bucketLimit: limits, bucket };
}
