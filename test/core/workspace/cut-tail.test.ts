// A W&B log cut mid-record (a killed run) shows the cut as a read error on its source once the tail stays put.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { createWorkspace } from '../../../src/core/workspace/create';
import type { Workspace } from '../../../src/core/workspace/workspace';
import { waitFor } from '../../helpers/wait-for';

const KILLED = join(
  import.meta.dirname,
  '..',
  '..',
  'fixtures',
  'wandb',
  '480284856__RLHF_Training',
  'offline-run-20230413_090116-iotz2fip',
);

let ws: Workspace | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await ws?.close();
  ws = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

test('the killed run iotz2fip: a truncated error at the end of its complete records, as inspect says', async () => {
  const root = mkdtempSync(join(tmpdir(), 'rlwatch-cut-tail-'));
  dirs.push(root);
  // A fresh copy: its mtime is now, so only the unchanged tail (not an old mtime) can tell.
  cpSync(KILLED, join(root, 'iotz2fip'), { recursive: true });
  ws = createWorkspace({ watch: true });
  await ws.open(root);
  const errorsOf = () => ws!.listRuns()[0]!.sources.flatMap((s) => s.errors);
  expect(errorsOf()).toEqual([]);
  await waitFor(() => errorsOf().length > 0, 'the cut tail to be reported', 15_000);
  expect(errorsOf()).toEqual([
    { offset: 15799, kind: 'truncated', message: expect.stringMatching(/ends mid-record/) },
  ]);
});
