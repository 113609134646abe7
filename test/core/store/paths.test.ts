// defaultStorePath per platform: XDG on Linux, Application Support on macOS, %APPDATA% on Windows.

import { describe, expect, it } from 'vitest';
import { defaultStorePath } from '../../../src/core/store';

describe('defaultStorePath', () => {
  it('uses XDG_CONFIG_HOME when absolute, else ~/.config', () => {
    expect(defaultStorePath({ platform: 'linux', env: { XDG_CONFIG_HOME: '/x/cfg' }, home: '/home/u' })).toBe(
      '/x/cfg/rlwatch/rlwatch.db',
    );
    expect(defaultStorePath({ platform: 'linux', env: {}, home: '/home/u' })).toBe(
      '/home/u/.config/rlwatch/rlwatch.db',
    );
    expect(defaultStorePath({ platform: 'linux', env: { XDG_CONFIG_HOME: 'rel' }, home: '/home/u' })).toBe(
      '/home/u/.config/rlwatch/rlwatch.db',
    );
  });

  it('uses Application Support on macOS and APPDATA on Windows', () => {
    expect(defaultStorePath({ platform: 'darwin', env: {}, home: '/Users/u' })).toBe(
      '/Users/u/Library/Application Support/rlwatch/rlwatch.db',
    );
    expect(
      defaultStorePath({
        platform: 'win32',
        env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' },
        home: 'C:\\Users\\u',
      }),
    ).toBe('C:\\Users\\u\\AppData\\Roaming\\rlwatch\\rlwatch.db');
  });

  it('defaults to this process', () => {
    expect(defaultStorePath()).toMatch(/rlwatch[/\\]rlwatch\.db$/);
  });
});
