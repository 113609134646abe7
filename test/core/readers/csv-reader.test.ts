// CSV reader: real corpus files, header handling, non-finite cells, incremental tailing.

import { mkdtempSync, writeFileSync, appendFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CsvReader } from '../../../src/core/text-formats/csv-reader';
import { readSource } from '../../../src/core/sources/registry';
import { summarize } from '../../../src/core/series/scalar-series';
import { fixture, MemoryFS, snapshot } from './helpers';
import { ppoDump, Sb3CsvWriter } from '../../helpers/sb3-csv-writer';

const tmp = mkdtempSync(join(tmpdir(), 'rlwatch-csv-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function readText(text: string) {
  const fs = new MemoryFS();
  fs.set('/m.csv', text);
  const r = new CsvReader('/m.csv', { io: fs });
  await r.readMore({ final: true });
  return r.result();
}

describe('CSV on the corpus', () => {
  it('reads baselines HER progress.csv with epoch as the step', async () => {
    const r = await readSource(
      fixture('progress/CS15B001__HER_Improvements/progress.04_29_20_21_32.csv'),
      'csv',
    );
    expect(r.errors).toEqual([]);
    expect(r.records).toBe(43);
    expect(r.series.has('epoch')).toBe(false);
    const q = summarize(r.series.get('test/mean_Q'));
    expect(q.count).toBe(43);
    expect(q.firstStep).toBe(0);
    expect(q.lastStep).toBe(42);
    expect(q.last).toBe(-22.841196);
    expect(q.sum).toBeCloseTo(-514.2437898, 9);
    const sr = r.series.get('test/success_rate');
    expect(sr.step(10)).toBe(10);
    expect(sr.value(10)).toBe(0.06666666666666667);
  });

  it('keeps the resetting episode counter of an appended training_metrics.csv', async () => {
    const r = await readSource(
      fixture('progress/AaravTandon24__adaptive-npc-rl/training_metrics.csv'),
      'csv',
    );
    expect(r.errors).toEqual([]);
    const s = r.series.get('player_survival_time');
    expect([...s.steps()]).toEqual([1, 2, 1, 1, 2, 1, 2, 3, 4]);
    expect(summarize(s).sum).toBeCloseTo(111.38, 9);
    expect(r.series.tags()).toHaveLength(7);
  });

  it('reads a header-only monitor.csv with its JSON comment line and CR CR LF ending', async () => {
    const r = await readSource(fixture('progress/BoogaQ__PPO-exploration/1.monitor.csv'), 'csv');
    expect(r.errors).toEqual([]);
    expect(r.records).toBe(0);
    expect(r.series.size).toBe(0);
  });
});

describe('CSV semantics', () => {
  it('dates monitor.csv rows by t_start + t and numbers them by row index', async () => {
    const r = await readText(
      '#{"t_start": 1595878270.5, "env_id": "X"}\r\nr,l,t\r\n1.5,10,2.25\r\n-3,12,4.5\r\n',
    );
    const s = r.series.get('r');
    expect([...s.steps()]).toEqual([0, 1]);
    expect([...s.values()]).toEqual([1.5, -3]);
    expect(s.wallTime(1)).toBeCloseTo(1595878270.5 + 4.5, 3);
  });

  it('parses nan/inf, skips empty and string cells, handles changing columns and repeated headers', async () => {
    const r = await readText(
      'step,loss,name,kl\n1,nan,a,0.1\n2,,b,inf\n3,-Infinity,c\nstep,kl,extra\n4,0.5,7\n',
    );
    expect([...r.series.get('loss').values()]).toEqual([Number.NaN, -Infinity]);
    expect([...r.series.get('loss').steps()]).toEqual([1, 3]);
    expect([...r.series.get('kl').values()]).toEqual([0.1, Infinity, 0.5]);
    expect([...r.series.get('kl').steps()]).toEqual([1, 2, 4]);
    expect([...r.series.get('extra').values()]).toEqual([7]);
    expect(r.series.has('name')).toBe(false);
    expect(summarize(r.series.get('loss')).nonFinite).toBe(2);
    expect(r.records).toBe(4);
  });

  it('picks SB3 time/total_timesteps as the step and an absolute timestamp column as wall time', async () => {
    const r = await readText(
      'time/fps,time/total_timesteps,timestamp,train/approx_kl\n100,2048,1700000000.5,0.01\n101,4096,1700000010.5,0.02\n',
    );
    const kl = r.series.get('train/approx_kl');
    expect([...kl.steps()]).toEqual([2048, 4096]);
    expect(kl.wallTime(1)).toBeCloseTo(1700000010.5, 3);
    expect(r.series.has('timestamp')).toBe(false);
    expect(r.series.has('time/total_timesteps')).toBe(false);
  });

  it('gives rows without a time column no wall time (never the file mtime)', async () => {
    const r = await readText('a\n1\n');
    expect(r.series.get('a').wallTime(0)).toBeNaN();
    expect(r.series.get('a').untimed).toBe(1);
  });

  it('reads a percentage cell as its number, and a percent progress column as a fraction', async () => {
    // SB3-style trainers print their progress as "60.03%".
    const r = await readText('step,Progress,loss\n10,20.5%,1\n20,60.03%,2\n');
    expect([...r.series.get('Progress').values()]).toEqual([20.5, 60.03]);
    expect(r.progress?.fraction).toBeCloseTo(0.6003, 12);
  });

  it('keeps quoted newlines inside one record', async () => {
    const r = await readText('step,note,v\n1,"two\nlines",3\n2,x,4\n');
    expect([...r.series.get('v').values()]).toEqual([3, 4]);
  });
});

describe('CSV tailing', () => {
  const text = 'step,loss,kl\n1,0.5,0.01\n2,0.25,nan\n3,,0.03\n4,0.125,0.04\n';

  it('does not consume a half-written last line until it is complete', async () => {
    const fs = new MemoryFS();
    fs.set('/g.csv', 'step,loss\n1,0.5\n2,0.2');
    const r = new CsvReader('/g.csv', { io: fs });
    expect(await r.readMore()).toEqual({ records: 1, errors: [] });
    fs.set('/g.csv', 'step,loss\n1,0.5\n2,0.25\n');
    expect(await r.readMore()).toEqual({ records: 1, errors: [] });
    expect([...r.result().series.get('loss').values()]).toEqual([0.5, 0.25]);
  });

  it('gives the one-shot result at every split point (in memory)', async () => {
    const bytes = new TextEncoder().encode(text);
    const oneShot = snapshot(await readText(text));
    for (let a = 0; a <= bytes.length; a++) {
      for (let b = a; b <= bytes.length; b += 7) {
        const fs = new MemoryFS();
        const r = new CsvReader('/g.csv', { io: fs });
        for (const cut of [a, b, bytes.length]) {
          fs.set('/g.csv', bytes.slice(0, cut));
          await r.readMore();
        }
        await r.readMore({ final: true });
        expect(snapshot(r.result())).toEqual(oneShot);
      }
    }
  });

  it('follows a real file appended in parts, and restarts when it is replaced', async () => {
    const path = join(tmp, 'progress.csv');
    writeFileSync(path, text.slice(0, 20));
    const r = new CsvReader(path);
    await r.readMore();
    appendFileSync(path, text.slice(20, 41));
    await r.readMore();
    appendFileSync(path, text.slice(41));
    await r.readMore();
    expect(snapshot(r.result())).toEqual(snapshot(await readSource(path, 'csv')));
    rmSync(path);
    writeFileSync(path, 'step,loss\n9,1\n');
    await r.readMore();
    expect([...r.result().series.get('loss').steps()]).toEqual([9]);
    expect(r.result().series.has('kl')).toBe(false);
  });

  it('reads live what a re-read reads when SB3 widens the header in place (new keys at later dumps)', async () => {
    const path = join(tmp, 'sb3-progress.csv');
    const w = new Sb3CsvWriter(path);
    const r = new CsvReader(path);
    for (let i = 0; i < 8; i++) {
      // A third widening: an eval key from the fifth dump on.
      w.dump(i >= 4 ? { ...ppoDump(i), 'eval/mean_reward': 100 + i } : ppoDump(i));
      await r.readMore();
      expect(snapshot(r.result())).toEqual(snapshot(await readSource(path, 'csv')));
    }
    w.close();
    const live = r.result();
    expect([...live.series.get('rollout/ep_rew_mean').steps()]).toEqual(
      Array.from({ length: 8 }, (_, i) => 2048 * (i + 1)),
    );
    expect([...live.series.get('train/entropy_loss').values()]).toEqual(
      Array.from({ length: 7 }, (_, i) => -0.69 + (i + 1) / 100),
    );
    expect([...live.series.get('eval/mean_reward').steps()]).toEqual([10240, 12288, 14336, 16384]);
    expect(live.series.tags().filter((t) => !t.includes('/'))).toEqual([]);
    rmSync(path);
  });

  it('starts over when bytes before the offset change in place, the size growing (in memory)', async () => {
    const fs = new MemoryFS();
    fs.set('/p.csv', 'a,b\n1,2\n');
    const r = new CsvReader('/p.csv', { io: fs });
    await r.readMore();
    fs.set('/p.csv', 'a,b,c\n1,2,\n3,4,5\n');
    await r.readMore();
    expect(snapshot(r.result())).toEqual(snapshot(await readText('a,b,c\n1,2,\n3,4,5\n')));
  });

  it('reports a missing file as a typed io error', async () => {
    const r = await readSource(join(tmp, 'nope.csv'), 'csv');
    expect(r.errors.map((e) => e.kind)).toEqual(['io']);
  });
});

describe('CSV stray quotes', () => {
  it('does not stall the tail on a quote inside an unquoted field', async () => {
    const fs = new MemoryFS();
    fs.set('/q.csv', 'step,v\n1,5"\n2,6\n3,');
    const r = new CsvReader('/q.csv', { io: fs });
    const batch = await r.readMore();
    expect(batch.records).toBe(2);
    expect([...r.result().series.get('v').steps()]).toEqual([2]);
  });
});
