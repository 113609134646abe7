// Test helper: an AlertService over an in-memory store, one run 'r' under '/runs', default settings, a fixed clock; a test overrides what it is about.

import { AlertService, type AlertServiceOptions } from '../../src/core/alerts/alert-service';
import { openStore } from '../../src/core/store';
import { DEFAULT_SETTINGS } from '../../src/shared/domain';

/** The fixed clock's time (ms since the epoch). */
export const TEST_NOW = 1_700_000_000_000;

/** An AlertService with the defaults above, `options` over them. */
export function testAlertService(options: Partial<AlertServiceOptions> = {}): AlertService {
  return new AlertService({
    store: () => openStore({ path: null }),
    root: () => '/runs',
    runs: () => ['r'],
    configOf: () => null,
    settings: () => DEFAULT_SETTINGS,
    clock: () => TEST_NOW,
    ...options,
  });
}
