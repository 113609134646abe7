// Notices reach every client: kept by AppCore and replayed through app.info to clients that connect later.

import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { AppCore } from '../../../src/core/app/app-core';
import { openStore } from '../../../src/core/store';

function folderWithLoop(): string {
  const root = mkdtempSync(join(tmpdir(), 'rlwatch-notices-'));
  mkdirSync(join(root, 'run'));
  writeFileSync(join(root, 'run', 'metrics.csv'), 'step,x\n1,1\n');
  symlinkSync(root, join(root, 'run', 'loop'));
  return root;
}

describe('notices for clients that connect later', () => {
  let core: AppCore | null = null;
  afterEach(async () => {
    await core?.dispose();
    core = null;
  });

  test('a discovery notice pushed before anyone listened is in app.info, once', async () => {
    core = new AppCore({
      host: { mode: 'serve', version: 't', allowOpenFolder: false },
      store: openStore({ path: null }),
    });
    await core.open(folderWithLoop());
    // Nobody subscribed to the bus while the folder opened: a browser tab opened now asks app.info.
    expect(core.info().notices).toEqual([
      { level: 'warning', message: expect.stringMatching(/^skipped run\/loop: symbolic link loop/) },
    ]);
  });

  test("opening another folder drops the first folder's notices", async () => {
    core = new AppCore({
      host: { mode: 'serve', version: 't', allowOpenFolder: true },
      store: openStore({ path: null }),
    });
    await core.open(folderWithLoop());
    expect(core.info().notices).toHaveLength(1);
    const clean = mkdtempSync(join(tmpdir(), 'rlwatch-notices-clean-'));
    writeFileSync(join(clean, 'metrics.csv'), 'step,x\n1,1\n');
    await core.open(clean);
    expect(core.info().notices).toEqual([]);
  });
});
