// Crash recovery: a process killed with SIGKILL mid-write leaves a database that reopens, whole and usable.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { openStore } from '../../../src/core/store';

const dir = mkdtempSync(join(tmpdir(), 'rlwatch-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function killMidWrite(path: string, afterMs: number): Promise<void> {
  return new Promise((res, rej) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'children', 'busy-writer.ts'), path],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    child.once('error', rej);
    child.stdout!.once('data', () => setTimeout(() => child.kill('SIGKILL'), afterMs));
    child.once('exit', (_code, signal) =>
      signal === 'SIGKILL' ? res() : rej(new Error(`writer exited ${signal}`)),
    );
  });
}

describe('the store after kill -9 mid-write', () => {
  test('three crashes in a row: each reopen is persistent, passes its check, keeps what was committed', async () => {
    const path = join(dir, 'rlwatch.db');
    let lastCount = 0;
    let ownRows = 0;
    for (const ms of [150, 300, 450]) {
      await killMidWrite(path, ms);
      const store = openStore({ path, integrityCheck: 'quick' });
      // Not moved aside as corrupt, not fallen back to memory: WAL recovery made it whole.
      expect(store.status).toMatchObject({ persistent: true });
      expect((store.status as { recovered?: unknown }).recovered ?? null).toBeNull();
      expect(store.getSetting('settings')).toEqual({ theme: 'dark' });
      const count = store.systemSampleCount();
      // Committed batches survive; each run adds more (the writer restarts its own count at 1, same rows).
      expect(count).toBeGreaterThan(0);
      // Whole batches only (each is one transaction), plus the single rows this test added.
      expect((count - ownRows) % 200).toBe(0);
      lastCount = count;
      store.appendSystemSamples([{ t: -1, snapshot: { cpuPct: 1 } }]);
      expect(store.systemSampleCount()).toBe(count + 1);
      ownRows++;
      store.close();
    }
    expect(lastCount).toBeGreaterThan(0);
  });
});
