// The folder a launch names (first start, or a second one handing it over): flags skipped, made absolute.
import { describe, expect, it } from 'vitest';
import { folderFromArgv } from '../../src/main/launch-args';

describe('folderFromArgv', () => {
  it('takes the last argument that is not a flag, after the app path when unpackaged', () => {
    expect(folderFromArgv(['electron', '/app', '--enable-logging', '/runs/a'], false, '/home/u')).toBe(
      '/runs/a',
    );
    expect(folderFromArgv(['/opt/rlwatch/rlwatch', '/runs/b', '--no-sandbox'], true, '/home/u')).toBe(
      '/runs/b',
    );
    expect(folderFromArgv(['electron', '/app'], false, '/home/u')).toBeUndefined();
    expect(folderFromArgv(['/opt/rlwatch/rlwatch'], true, '/home/u')).toBeUndefined();
  });

  it("resolves a relative folder against the launching process's directory, not the running app's", () => {
    expect(folderFromArgv(['/opt/rlwatch/rlwatch', 'runs/c'], true, '/home/u/exp')).toBe(
      '/home/u/exp/runs/c',
    );
  });
});
