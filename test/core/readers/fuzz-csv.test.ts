// Fuzzes the CSV reader with 100k mutated and truncated inputs.

import { describe, expect, it } from 'vitest';
import { enc, fuzz } from './fuzz-harness';

const SEEDS = [
  enc('step,loss,kl,name\n1,0.5,nan,a\n2,,inf,"b\nc"\n3,-1e3,0.1\nstep,x\n4,5\n'),
  enc('#{"t_start": 1595878270.4}\r\nr,l,t\r\r\n1.5,10,2.2\r\n'),
  enc('time/total_timesteps,timestamp,train/kl\n2048,1700000000,0.01\n4096,2023-01-01T00:00:00Z,"0.02"\n'),
];

describe('CSV fuzzing', () => {
  it('yields data or typed errors on 100k mutated/truncated inputs', async () => {
    expect(await fuzz('csv', SEEDS, 10_000, 9)).toBe(100_000);
  });
});
