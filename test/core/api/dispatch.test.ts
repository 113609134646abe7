// dispatch(): every request is validated against the contract before a handler runs.

import { describe, expect, test, vi } from 'vitest';
import { dispatch } from '../../../src/core/api/dispatch';
import type { Handlers } from '../../../src/shared/contract';
import { ApiError } from '../../../src/shared/result';

const notHere = (): never => {
  throw new ApiError('unavailable', 'not in this test');
};
const unused = Object.fromEntries(
  (
    [
      'app.visibility',
      'app.firstScreen',
      'runs.recent',
      'runs.details',
      'runs.saveView',
      'alerts.list',
      'alerts.ack',
      'alerts.snooze',
      'system.history',
      'settings.get',
      'settings.set',
    ] as const
  ).map((c) => [c, notHere]),
) as unknown as Handlers;

function handlers(overrides: Partial<Handlers> = {}): Handlers {
  return {
    ...unused,
    'app.info': () => ({
      version: '1',
      mode: 'serve',
      root: null,
      canChooseFolder: false,
      store: { persistent: false, message: null },
      watch: { polling: false, suggestion: null },
      notices: [],
    }),
    'runs.list': () => [],
    'runs.openFolder': ({ path }) => ({ root: path }),
    'runs.chooseFolder': () => null,
    'series.get': ({ run, tag }) => ({
      run,
      tag,
      steps: new Float64Array([1]),
      wallTimes: new Float64Array([2]),
      values: new Float64Array([3]),
      length: 1,
      inRange: 1,
      downsampled: false,
      extent: null,
      restarts: [],
      sessions: [],
      untimed: 0,
    }),
    ...overrides,
  };
}

describe('dispatch', () => {
  test('routes a valid request and wraps the value', async () => {
    expect(await dispatch(handlers(), 'series.get', { run: 'a', tag: 'b', pixels: 100 })).toMatchObject({
      ok: true,
      value: { run: 'a', tag: 'b', steps: new Float64Array([1]), length: 1 },
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
    expect(await dispatch(h, 'series.get', { run: 'a', tag: 'b', pixels: 10, extra: 1 })).toMatchObject({
      ok: false,
    });
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

describe('input bounds before validation', () => {
  function nested(depth: number): unknown {
    let v: unknown = [];
    for (let i = 0; i < depth; i++) v = [v];
    return v;
  }

  test('2000 levels of nested arrays are a bad-request, not a stack overflow', async () => {
    const saveView = vi.fn(() => null);
    const r = await dispatch(handlers({ 'runs.saveView': saveView }), 'runs.saveView', {
      view: { pins: nested(2000) },
    });
    expect(r).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    expect(r.ok ? '' : r.error.message).toMatch(/nested deeper than 64/);
    expect(saveView).not.toHaveBeenCalled();
  });

  test('a shallow view within bounds still reaches the handler', async () => {
    const saveView = vi.fn(() => null);
    const r = await dispatch(handlers({ 'runs.saveView': saveView }), 'runs.saveView', {
      view: { pins: nested(20) },
    });
    expect(r).toMatchObject({ ok: true });
    expect(saveView).toHaveBeenCalledOnce();
  });

  test('too many values are refused by count', async () => {
    const r = await dispatch(handlers(), 'runs.saveView', {
      view: { a: Array.from({ length: 300_000 }, () => 1) },
    });
    expect(r).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    expect(r.ok ? '' : r.error.message).toMatch(/more than 200000 values/);
  });

  test('a cyclic object (possible over structured clone) is refused, not walked forever', async () => {
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    const r = await dispatch(handlers(), 'runs.saveView', { view: cyc });
    expect(r).toMatchObject({ ok: false, error: { code: 'bad-request' } });
  });
});

describe('channel names that are not strings', () => {
  test('an object whose toString is not a function is an unknown channel, not a throw', async () => {
    const r = await dispatch(handlers(), { toString: 1 }, {});
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'unknown-channel', message: 'unknown channel of type object' },
    });
  });
});
