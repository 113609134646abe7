// Browser mode's "Open folder…" command: `rlwatch serve DIR` pasted into a shell opens exactly DIR.

import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { parentFolder, serveCommand, shellWord } from '../../src/shared/serve-command';

describe('serveCommand', () => {
  test('a plain path stays bare; none typed yet is a placeholder', () => {
    expect(serveCommand('/data/runs/exp2')).toBe('rlwatch serve /data/runs/exp2');
    expect(serveCommand('  ')).toBe('rlwatch serve OTHER_DIR');
  });

  test('spaces, quotes and shell characters reach the command as one word, unchanged', () => {
    for (const dir of ["/tmp/my runs/it's", '/x/$(rm -rf ~)', '/a;b|c&d', '/with`tick`', '"q"']) {
      const word = shellWord(dir);
      // The shell itself reads the word back: one argument, the path as typed.
      const echoed = execFileSync('sh', ['-c', `printf '%s\\n' ${word}`], { encoding: 'utf8' });
      expect(echoed).toBe(`${dir}\n`);
    }
  });
});

describe('parentFolder', () => {
  test('the folder holding the served root, with its separator', () => {
    expect(parentFolder('/data/runs/exp1')).toBe('/data/runs/');
    expect(parentFolder('/data/runs/exp1/')).toBe('/data/runs/');
    expect(parentFolder('C:\\runs\\exp1')).toBe('C:\\runs\\');
    expect(parentFolder('runs')).toBe('runs');
  });
});
