// A file cut short by its writer: whether what it is rewritten with repeats its earlier contents (dropped) or starts a restart's session (kept).

import type { ResetReason } from '../series/live-view';
import type { SeriesSet } from '../series/series-set';
import type { LiveEntry, RunState } from './run-state';

/** Earlier contents of `entry`'s file, cut short by its writer: once the new contents hold as many points,
 * they are a restart's session (kept) where any point differs, else a whole-file rewrite (dropped, its tags
 * marked in `dirty`). Every such earlier contents is settled: a rewrite caught half-written twice left two.
 * True when any was dropped (the run's structure changed). */
export function settleRewrites(run: RunState, entry: LiveEntry, dirty: Map<string, ResetReason>): boolean {
  let dropped = false;
  for (const old of [...run.entries]) {
    if (old.state !== 'dead' || old.rewritten !== 'pending' || old.path !== entry.path) continue;
    const verdict = rewriteVerdict(old.set, entry.set);
    if (verdict === 'pending') continue;
    if (verdict === 'differs') {
      old.rewritten = 'kept';
      continue;
    }
    run.entries.splice(run.entries.indexOf(old), 1);
    for (const [tag] of old.set.entries()) dirty.set(tag, 'bulk');
    dropped = true;
  }
  return dropped;
}

/** Whether `now` repeats `before` (a whole-file rewrite): 'differs' at the first point that differs (step or
 * value, in any tag), 'repeats' once every tag holds all of `before`'s points unchanged, else 'pending'. */
export function rewriteVerdict(before: SeriesSet, now: SeriesSet): 'repeats' | 'differs' | 'pending' {
  let complete = true;
  for (const [tag, old] of before.entries()) {
    const cur = now.has(tag) ? now.get(tag) : null;
    const n = Math.min(old.length, cur?.length ?? 0);
    for (let i = 0; i < n; i++) {
      const a = old.value(i);
      const b = cur!.value(i);
      if (old.step(i) !== cur!.step(i) || (a !== b && !(a !== a && b !== b))) return 'differs';
    }
    if (n < old.length) complete = false;
  }
  return complete ? 'repeats' : 'pending';
}
