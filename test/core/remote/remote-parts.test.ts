// Remote endpoints' pure parts: URL parsing (Origin, socket, token kept out of what is shown), backoff, renaming.

import { describe, expect, test } from 'vitest';
import { backoffDelay } from '../../../src/core/remote/backoff';
import { parseEndpointUrl } from '../../../src/core/remote/endpoint-url';
import { remoteName, renameAlert, renameRun } from '../../../src/core/remote/rename';
import type { AlertInfo, RunInfo } from '../../../src/shared/domain';
import { remoteRunKey, splitRunKey } from '../../../src/shared/run-key';

describe('endpoint URLs', () => {
  test('what serve prints becomes the socket URL, the Origin serve expects and a token-free shown URL', () => {
    const u = parseEndpointUrl('http://127.0.0.1:40123/?token=abc-DEF_1');
    expect(u).toEqual({
      id: '127.0.0.1:40123',
      shown: 'http://127.0.0.1:40123/',
      full: 'http://127.0.0.1:40123/?token=abc-DEF_1',
      socket: 'ws://127.0.0.1:40123/ws?token=abc-DEF_1',
      origin: 'http://127.0.0.1:40123',
    });
    expect(parseEndpointUrl('http://[::1]:7/?token=t').origin).toBe('http://[::1]:7');
  });

  test.each([
    ['no URL', 'not a url'],
    ['https', 'https://h:1/?token=t'],
    ['ws', 'ws://h:1/?token=t'],
    ['no token', 'http://h:1/'],
    ['credentials', 'http://u:p@h:1/?token=t'],
  ])('%s is a bad-request error', (_what, url) => {
    expect(() => parseEndpointUrl(url)).toThrow(expect.objectContaining({ code: 'bad-request' }));
  });
});

describe('backoff', () => {
  const at = (attempt: number, r: number): number =>
    backoffDelay(attempt, { baseMs: 100, maxMs: 1000, random: () => r });

  test('doubles per failure up to the cap, with half of each delay random', () => {
    expect([0, 1, 2, 3, 4, 10].map((a) => at(a, 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([0, 1, 2, 3, 4, 10].map((a) => at(a, 0.999999))).toEqual([100, 200, 400, 800, 1000, 1000]);
    // Two clients with different draws retry at different times.
    expect(at(3, 0.1)).not.toBe(at(3, 0.7));
  });
});

describe('run keys and renaming', () => {
  test('a remote key never equals a local name and splits back at the first separator', () => {
    const key = remoteRunKey('h:1', 'a/b');
    expect(key).toBe('h:1//a/b');
    expect(splitRunKey(key)).toEqual({ host: 'h:1', run: 'a/b' });
    expect(splitRunKey('a/b')).toEqual({ host: null, run: 'a/b' });
    // A run the endpoint itself got from another endpoint keeps its own key.
    expect(splitRunKey('h:1//h:2//x')).toEqual({ host: 'h:1', run: 'h:2//x' });
    expect(remoteName('h:1', 'h:2//x')).toBe(null);
  });

  test('runs get the key and host; alerts get their id and run prefixed the same way', () => {
    const run = { run: '.', tags: ['kl'] } as unknown as RunInfo;
    expect(renameRun('h:1', run)).toMatchObject({ run: 'h:1//.', host: 'h:1', tags: ['kl'] });
    const alert = { id: '[".","kl-above-target","kl"]', run: '.' } as AlertInfo;
    const renamed = renameAlert('h:1', alert);
    expect(renamed).toMatchObject({ id: 'h:1//[".","kl-above-target","kl"]', run: 'h:1//.' });
    expect(remoteName('h:1', renamed.id)).toBe(alert.id);
  });
});
