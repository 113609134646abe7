// A run folder that becomes unreadable (chmod 000) shows its sources with an `io` "permission denied"
// error, not as dead; readable again, they carry on. Root ignores chmod, so the failure is injected.

import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import type * as FsPromises from 'node:fs/promises';
import { afterEach, expect, test, vi } from 'vitest';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';
import { waitFor } from '../../helpers/wait-for';

/** Paths under this folder fail as an unreadable folder makes them fail for a non-root user. */
const denied = vi.hoisted(() => ({ under: null as string | null }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FsPromises>();
  const guard =
    <A extends unknown[], R>(f: (path: string, ...rest: A) => Promise<R>) =>
    (path: string, ...rest: A): Promise<R> => {
      if (denied.under !== null && String(path).startsWith(denied.under)) {
        const err = Object.assign(new Error(`EACCES: permission denied, open '${String(path)}'`), {
          code: 'EACCES',
        });
        return Promise.reject(err);
      }
      return f(path, ...rest);
    };
  return { ...fs, stat: guard(fs.stat as never), open: guard(fs.open as never) };
});

let ws: Workspace | null = null;
let dir: string | null = null;
afterEach(async () => {
  denied.under = null;
  await ws?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  ws = null;
  dir = null;
});

test('an unreadable run folder: sources say permission denied (io), stay live, and recover', async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlwatch-eacces-'));
  const csv = join(dir, 'progress.csv');
  writeFileSync(csv, 'step,loss\n0,1.0\n1,0.9\n');
  ws = createWorkspace({ sweepMs: 50 });
  await ws.open(dir);
  expect(ws.listRuns()[0]!.points).toBe(2);

  denied.under = dir + sep;
  appendFileSync(csv, '2,0.8\n');
  const source = () => ws!.listRuns()[0]!.sources[0]!;
  await waitFor(() => source().errors.some((e) => e.kind === 'io'), 'an io error on the source', 5000);
  expect(source().dead).toBe(false);
  expect(
    source()
      .errors.filter((e) => e.kind === 'io')
      .map((e) => e.message),
  ).toEqual([expect.stringMatching(/permission denied/) as string]);
  // Several sweeps later, still one error (not one per poll).
  await new Promise((r) => setTimeout(r, 300));
  expect(source().errors.filter((e) => e.kind === 'io')).toHaveLength(1);

  denied.under = null;
  await waitFor(() => ws!.listRuns()[0]!.points === 3, 'the row appended meanwhile', 5000);
  expect(source().dead).toBe(false);
});
