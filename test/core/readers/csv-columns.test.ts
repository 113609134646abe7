// CSV step and progress columns found by normalised name, as Stable-Baselines3 and baselines spell them.

import { describe, expect, it } from 'vitest';
import { normaliseColumnName, pickColumns } from '../../../src/core/text-formats/columns';
import { CsvReader } from '../../../src/core/text-formats/csv-reader';
import { MemoryFS } from './helpers';

async function readCsv(fs: MemoryFS) {
  const r = new CsvReader('/progress.csv', { io: fs });
  await r.readMore();
  return r;
}

describe('column names', () => {
  it('unify case and the separators / _ - . and spaces', () => {
    expect(normaliseColumnName(' Time/Total Timesteps ')).toBe('time_total_timesteps');
    expect(normaliseColumnName('time-total.timesteps')).toBe('time_total_timesteps');
    expect(normaliseColumnName('time/ total__timesteps')).toBe('time_total_timesteps');
  });

  it('pick the most specific step key, the wall time and the progress column', () => {
    expect(pickColumns(['rollout/ep_rew_mean', 'time/total timesteps', 'time/iterations'])).toEqual({
      step: 1,
      wall: -1,
      progress: -1,
    });
    expect(pickColumns(['Total-Timesteps', 'episode', 'Time.Progress', 'timestamp'])).toEqual({
      step: 0,
      wall: 3,
      progress: 2,
    });
    expect(pickColumns(['loss', 'accuracy'])).toEqual({ step: -1, wall: -1, progress: -1 });
  });
});

describe('Stable-Baselines3 progress.csv', () => {
  for (const stepName of [
    'time/total timesteps',
    'total_timesteps',
    'time/total_timesteps',
    'Time/Total-Timesteps',
  ]) {
    it(`takes the step from "${stepName}", not the row index`, async () => {
      const fs = new MemoryFS();
      fs.set(
        '/progress.csv',
        [
          `time/fps,time/iterations,time/time_elapsed,${stepName},rollout/ep_rew_mean`,
          '510,1,4,2048,12.5',
          '505,2,8,4096,14.25',
          '508,3,12,6144,',
        ].join('\n') + '\n',
      );
      const r = await readCsv(fs);
      const reward = r.series.get('rollout/ep_rew_mean');
      expect([...reward.steps()]).toEqual([2048, 4096]);
      expect([...r.series.get('time/fps').steps()]).toEqual([2048, 4096, 6144]);
      expect(r.series.has(stepName)).toBe(false);
    });
  }

  it("reports the CSV's progress column as the run's progress, with an ETA from the rate rows arrive", async () => {
    const fs = new MemoryFS();
    const header = 'time/total_timesteps,time/progress,train/loss\n';
    fs.set('/progress.csv', header + '1000,0.1,0.5\n', 1_700_000_000);
    const r = await readCsv(fs);
    expect(r.result().progress).toEqual({
      fraction: 0.1,
      etaSeconds: null,
      fields: { 'time/progress': 0.1 },
    });
    fs.set('/progress.csv', header + '1000,0.1,0.5\n2000,0.2,0.4\n', 1_700_000_010);
    await r.readMore();
    expect(r.result().progress).toEqual({ fraction: 0.2, etaSeconds: 80, fields: { 'time/progress': 0.2 } });
    fs.set('/progress.csv', header + '1000,0.1,0.5\n2000,0.2,0.4\n3000,2.5,0.3\n', 1_700_000_020);
    await r.readMore();
    expect(r.result().progress?.fraction).toBe(0.2);
  });
});
