// A parser library loaded on its first use, not at start-up: a command that reads no file of its format never pays for it.

import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/** `load()` gives the CommonJS module `id` (required once, on the first call). */
export function lazyModule<T>(id: string): () => T {
  let mod: T | undefined;
  return () => (mod ??= load(id) as T);
}
