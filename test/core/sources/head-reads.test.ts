// Classifying a file by its head reads a small file with a small buffer (10k run folders of a short CSV, #36), and a
// larger file's head as far as before: what is classified how does not change.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as FsPromises from 'node:fs/promises';
import { afterAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { classifyFile, FIRST_HEAD_READ } from '../../../src/core/sources/sniff';

/** The buffer length of every read made through a handle of node:fs/promises' open. */
const seen = vi.hoisted(() => ({ reads: [] as number[] }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FsPromises>();
  const open = (async (...args: Parameters<typeof fs.open>) => {
    const handle = await fs.open(...args);
    const read = handle.read.bind(handle) as (...a: unknown[]) => Promise<unknown>;
    (handle as { read: unknown }).read = (buffer: Uint8Array, ...rest: unknown[]) => {
      seen.reads.push(buffer.length);
      return read(buffer, ...rest);
    };
    return handle;
  }) as typeof fs.open;
  return { ...fs, open };
});

const dir = mkdtempSync(join(tmpdir(), 'rlwatch-head-reads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => void (seen.reads.length = 0));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('classifying a file by its head', () => {
  test('a short metrics.csv is classified from one read of at most FIRST_HEAD_READ bytes', async () => {
    const path = file('metrics.csv', 'step,reward,kl\n0,1,0.01\n1,2,0.02\n2,3,0.03\n');
    expect(await classifyFile(path, 'metrics.csv')).toBe('csv');
    expect(seen.reads).toHaveLength(1);
    expect(seen.reads[0]).toBeLessThanOrEqual(FIRST_HEAD_READ);
  });

  test('a short file that is not metrics is still refused', async () => {
    const path = file('data.csv', 'name,colour\napple,red\n');
    expect(await classifyFile(path, 'data.csv')).toBeNull();
  });

  test('what decides lies past the first read: the head is read on, as far as before', async () => {
    const pad = ' '.repeat(FIRST_HEAD_READ * 2);
    // A trainer state whose log_history key comes after a long first key.
    const state = file('state.json', `{"best": "${pad}", "log_history": [{"step": 1, "loss": 0.5}]}`);
    expect(await classifyFile(state, 'state.json')).toBe('trainer_state');
    // A CSV whose header follows long comment lines.
    const csv = file('train_log.csv', `# ${pad}\n# note\nstep,loss\n1,0.5\n`);
    expect(await classifyFile(csv, 'train_log.csv')).toBe('csv');
    // Past 64 KiB nothing is read: a key there does not count.
    const far = file('far.json', `{"best": "${' '.repeat(70 * 1024)}", "log_history": []}`);
    expect(await classifyFile(far, 'far.json')).toBeNull();
  });
});
