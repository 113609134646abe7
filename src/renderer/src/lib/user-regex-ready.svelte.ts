// The filters' regex engine as reactive state: a $derived whose filter was pending re-runs once the engine is in.

import { loadUserRegex } from './user-regex-loader';

let ready = $state(false);

/**
 * Called inside a $derived that got a pending filter (compileFilter, parseRunQuery): makes it depend on the engine's
 * arrival, so it runs again and filters for real once the engine is loaded.
 */
export function rerunWhenUserRegexLoaded(): void {
  // Reading `ready` is the dependency.
  if (ready) return;
  loadUserRegex().then(
    () => (ready = true),
    () => {},
  );
}
