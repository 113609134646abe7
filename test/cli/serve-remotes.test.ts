// serve's remote options: --remote and RLWATCH_REMOTES checked before anything starts, RLWATCH_TOKEN never weak.

import { describe, expect, test } from 'vitest';
import { tokenFromEnv } from '../../src/cli/host';
import { remoteUrls } from '../../src/cli/remote-flags';
import { UsageError } from '../../src/cli/usage';

describe('serve --remote', () => {
  test('flags first, then the environment list; a malformed URL is a usage error that hides its token', () => {
    expect(remoteUrls(['http://127.0.0.1:1/?token=a'], ' http://h:2/?token=b,http://h:3/?token=c ')).toEqual([
      'http://127.0.0.1:1/?token=a',
      'http://h:2/?token=b',
      'http://h:3/?token=c',
    ]);
    expect(remoteUrls([], undefined)).toEqual([]);
    expect(() => remoteUrls(['https://h:1/?token=secret'], undefined)).toThrow(UsageError);
    expect(() => remoteUrls(['https://h:1/?token=secret'], undefined)).toThrow(/token=…/);
    expect(() => remoteUrls(['https://h:1/?token=secret'], undefined)).not.toThrow(/secret/);
  });

  test('RLWATCH_TOKEN: unset is null (a random token), a short or odd one is refused', () => {
    expect(tokenFromEnv(undefined)).toBe(null);
    expect(tokenFromEnv('')).toBe(null);
    expect(tokenFromEnv('abcdefghij0123456789')).toBe('abcdefghij0123456789');
    expect(() => tokenFromEnv('short')).toThrow(UsageError);
    expect(() => tokenFromEnv('has spaces in it, sixteen+')).toThrow(UsageError);
  });
});
