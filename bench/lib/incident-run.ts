// Benchmarks' incident run: one event file of KL, entropy, reward, loss and filler tags, KL above target for 1 % of it.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventFileWriter } from '../../src/core/tfevents/writer';

/** Writes `DIR/runs/run1` (with its `target_kl` config) of `tags` tags × `steps` steps; KL is high at 60–61 %. */
export function writeIncidentRun(dir: string, tags: number, steps: number): void {
  const run = join(dir, 'runs', 'run1');
  mkdirSync(run, { recursive: true });
  writeFileSync(join(run, 'config.json'), JSON.stringify({ target_kl: 0.02 }));
  const names = [
    'approx_kl',
    'entropy',
    'reward',
    'loss',
    ...Array.from({ length: tags - 4 }, (_, i) => `train/m${i}`),
  ];
  const klHigh = (s: number): boolean => s > 0.6 * steps && s < 0.61 * steps;
  const w = new EventFileWriter(run, { wallTime: 1000 });
  for (let s = 0; s < steps; s++)
    w.scalars(
      s,
      names.map((tag, k) => ({
        tag,
        value: tag === 'approx_kl' ? (klHigh(s) ? 0.05 : 0.01) : Math.sin(s / 100 + k),
      })),
      'simple',
      1000 + s,
    );
  w.close();
}
