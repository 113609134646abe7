// The rlwatch command's argument handling: usage errors are typed (exit 2), help and version print.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { main } from '../../src/cli/main';
import { readableFolder, UsageError } from '../../src/cli/usage';

describe('rlwatch CLI', () => {
  test('--help lists every command and exits 0', async () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await main(['--help'])).toBe(0);
      const text = write.mock.calls.map((c) => String(c[0])).join('');
      for (const cmd of ['open', 'serve', 'demo']) expect(text).toContain(`rlwatch ${cmd}`);
    } finally {
      write.mockRestore();
    }
  });

  test('unknown commands, unknown flags and bad numbers are usage errors', async () => {
    await expect(main(['frobnicate'])).rejects.toBeInstanceOf(UsageError);
    // A name every object has is no command either (the table is looked up by its own keys only).
    await expect(main(['constructor'])).rejects.toBeInstanceOf(UsageError);
    await expect(main(['toString'])).rejects.toBeInstanceOf(UsageError);
    await expect(main(['serve', '/tmp', '--prot', '1'])).rejects.toThrow(/Unknown option/);
    await expect(main(['serve'])).rejects.toThrow(/exactly one folder/);
    await expect(main(['serve', '/tmp', '--port', 'http'])).rejects.toThrow(/--port must be a number/);
    await expect(main(['demo', '--rate', '0'])).rejects.toThrow(/--rate/);
  });

  test('unreadable paths are usage errors with the reason', async () => {
    await expect(readableFolder('/nonexistent/x')).rejects.toThrow(/does not exist/);
    const file = join(mkdtempSync(join(tmpdir(), 'rlwatch-cli-')), 'f.txt');
    writeFileSync(file, 'x');
    await expect(readableFolder(file)).rejects.toThrow(/is not a folder/);
  });
});
