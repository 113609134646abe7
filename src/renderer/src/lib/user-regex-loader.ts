// The filters' regex engine (shared/user-regex over re2js, a quarter of the page's script) loaded when a filter first needs it, not with the first screen (#36).

import type { compileUserRegex } from '../../../shared/user-regex';

type Compile = typeof compileUserRegex;

let compile: Compile | null = null;
let loading: Promise<Compile> | null = null;

/** Loads the engine once (a failed load is tried again on the next call); resolves to compileUserRegex. */
export function loadUserRegex(): Promise<Compile> {
  loading ??= import('../../../shared/user-regex').then(
    (m) => (compile = m.compileUserRegex),
    (e: unknown) => {
      loading = null;
      throw e;
    },
  );
  return loading;
}

/** compileUserRegex when the engine is loaded; else null, and its load is started (loadUserRegex says when it is in). */
export function userRegexNow(): Compile | null {
  if (compile === null) loadUserRegex().catch(() => {});
  return compile;
}
