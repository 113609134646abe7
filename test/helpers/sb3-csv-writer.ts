// A progress.csv writer that behaves as Stable-Baselines3's CSVOutputFormat: new keys rewrite the file in place.

import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';

/**
 * SB3 opens the file `w+t` once; when a dump brings keys it has not written, it appends them to its key list,
 * seeks to 0, reads every line, seeks to 0 again, writes the wider header and each old row with one empty field per
 * new key (no truncate: the file only grows, same inode), then writes the new row; it flushes after each dump.
 * Values are written as Python's str() writes them; a missing key is an empty field.
 */
export class Sb3CsvWriter {
  private readonly fd: number;
  private readonly keys: string[] = [];
  private pos = 0;

  constructor(private readonly path: string) {
    this.fd = openSync(path, 'w+');
  }

  dump(values: Record<string, number>): void {
    const extra = Object.keys(values).filter((k) => !this.keys.includes(k));
    if (extra.length > 0) {
      this.keys.push(...extra);
      const lines = readFileSync(this.path, 'utf8').split(/(?<=\n)/);
      this.pos = 0;
      this.put(this.keys.join(',') + '\n');
      for (const line of lines.slice(1)) this.put(line.slice(0, -1) + ','.repeat(extra.length) + '\n');
    }
    this.put(this.keys.map((k) => (k in values ? String(values[k]) : '')).join(',') + '\n');
  }

  close(): void {
    closeSync(this.fd);
  }

  private put(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    writeSync(this.fd, bytes, 0, bytes.length, this.pos);
    this.pos += bytes.length;
  }
}

/** One PPO dump as SB3 makes it: rollout/time keys from the first, train/* keys from the second on. */
export function ppoDump(i: number): Record<string, number> {
  const base = {
    'rollout/ep_len_mean': 20 + i,
    'rollout/ep_rew_mean': 20 + i * 1.5,
    'time/fps': 900 + i,
    'time/iterations': i + 1,
    'time/time_elapsed': 2 * (i + 1),
    'time/total_timesteps': 2048 * (i + 1),
  };
  if (i === 0) return base;
  return {
    ...base,
    'train/approx_kl': 0.01 + i / 1000,
    'train/clip_fraction': 0.1 + i / 100,
    'train/clip_range': 0.2,
    'train/entropy_loss': -0.69 + i / 100,
    'train/explained_variance': 0.1 * i,
    'train/learning_rate': 0.0003,
    'train/loss': 5 - i / 10,
    'train/n_updates': 10 * i,
    'train/policy_gradient_loss': -0.01,
    'train/value_loss': 10 - i / 5,
  };
}
