// The remote endpoints' schemas are built on their first check, not when the module loads (serve's start-up, #36).

import { expect, test, vi } from 'vitest';
import type * as Zod from 'zod';

/** zod objects built so far (zod's `z.object`, counted). */
const built = vi.hoisted(() => ({ objects: 0 }));

vi.mock('zod', async (importOriginal) => {
  const zod = await importOriginal<typeof Zod>();
  const object: typeof zod.z.object = (...args) => {
    built.objects++;
    return zod.z.object(...args);
  };
  return { ...zod, z: { ...zod.z, object } };
});

test('loading remote-shapes builds no schema; the first check builds them and checks as before', async () => {
  const shapes = await import('../../src/shared/remote-shapes');
  expect(built.objects).toBe(0);
  expect(shapes.appNoticeShape.safeParse({ level: 'info', message: 'hi' }).success).toBe(true);
  const after = built.objects;
  expect(after).toBeGreaterThan(0);
  const refused = shapes.appNoticeShape.safeParse({ level: 'loud', message: 'hi' });
  expect(refused.success).toBe(false);
  expect(shapes.runListShape.safeParse([{ run: 'r' }]).success).toBe(false);
  expect(shapes.runListShape.safeParse([]).success).toBe(true);
  // Built once: later checks, of any shape, build nothing more.
  expect(built.objects).toBe(after);
});
