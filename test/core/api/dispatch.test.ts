// dispatch(): every request is validated against the contract before a handler runs.

import { describe, expect, test, vi } from 'vitest';
import { ApiError, dispatch, type Handlers } from '../../../src/core/api/dispatch';

function handlers(overrides: Partial<Handlers> = {}): Handlers {
  return {
    'app.info': () => ({ version: '1', mode: 'serve', root: null, canChooseFolder: false }),
    'runs.list': () => [],
    'runs.openFolder': ({ path }) => ({ root: path }),
    'runs.chooseFolder': () => null,
    'series.get': () => ({ steps: [1], wallTimes: [2], values: [3] }),
    ...overrides,
  };
}

describe('dispatch', () => {
  test('routes a valid request and wraps the value', async () => {
    expect(await dispatch(handlers(), 'series.get', { run: 'a', tag: 'b' })).toEqual({
      ok: true,
      value: { steps: [1], wallTimes: [2], values: [3] },
    });
  });

  test('refuses channels outside the contract without calling anything', async () => {
    for (const name of ['nope', '__proto__', 'constructor', 42, null]) {
      const r = await dispatch(handlers(), name, {});
      expect(r).toMatchObject({ ok: false, error: { code: 'unknown-channel' } });
    }
  });

  test('refuses malformed arguments with the path of the problem, before the handler runs', async () => {
    const get = vi.fn();
    const h = handlers({ 'series.get': get });
    const wrongType = await dispatch(h, 'series.get', { run: 1, tag: 'x' });
    expect(wrongType).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    expect(wrongType.ok ? '' : wrongType.error.message).toMatch(/at run/);
    expect(await dispatch(h, 'series.get', { run: 'a', tag: 'b', extra: 1 })).toMatchObject({ ok: false });
    expect(await dispatch(h, 'series.get', 'not an object')).toMatchObject({ ok: false });
    expect(await dispatch(h, 'series.get', { run: '', tag: 'b' })).toMatchObject({ ok: false });
    expect(await dispatch(h, 'series.get', { run: 'x'.repeat(5000), tag: 'b' })).toMatchObject({ ok: false });
    expect(get).not.toHaveBeenCalled();
  });

  test('a missing argument object means {} for channels without arguments', async () => {
    expect(await dispatch(handlers(), 'runs.list', undefined)).toEqual({ ok: true, value: [] });
  });

  test('handler failures become typed results, never throws', async () => {
    const h = handlers({
      'runs.list': () => {
        throw new ApiError('not-found', 'gone');
      },
      'app.info': () => {
        throw new Error('boom');
      },
    });
    expect(await dispatch(h, 'runs.list', {})).toEqual({
      ok: false,
      error: { code: 'not-found', message: 'gone' },
    });
    expect(await dispatch(h, 'app.info', {})).toMatchObject({ ok: false, error: { code: 'internal' } });
  });
});
