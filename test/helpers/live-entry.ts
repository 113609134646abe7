// A run's live entry for a source a test made itself, as the loader holds one (no file identity, nothing queued).

import type { LiveEntry } from '../../src/core/workspace/run-state';

export function liveEntry(
  e: Pick<LiveEntry, 'path' | 'name' | 'format' | 'gen' | 'live' | 'set'>,
): LiveEntry {
  return {
    state: 'live',
    ...e,
    identity: null,
    size: 0,
    mtimeMs: null,
    queued: null,
    head: null,
    unlinkSeen: false,
    snapshot: false,
  };
}
