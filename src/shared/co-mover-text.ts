// A co-mover (another tag that jumped when an incident began) in words: `train/learning_rate ×100 at step 61440`.

import type { CoMover } from './domain';
import { formatNumber } from './format';

const fmt = (v: number): string => formatNumber(v, 3);

/** `tag ×100 at step N` for a positive tag, `tag 0.01 → -3.2 at step N` otherwise, `tag → NaN at step N`. */
export function coMoverText(m: CoMover): string {
  if (!Number.isFinite(m.value)) return `${m.tag} → ${fmt(m.value)} at step ${m.step}`;
  if (m.ratio !== null) {
    const r = m.ratio >= 1 ? `×${fmt(m.ratio)}` : `÷${fmt(1 / m.ratio)}`;
    return `${m.tag} ${r} at step ${m.step}`;
  }
  return `${m.tag} ${fmt(m.baseline)} → ${fmt(m.value)} at step ${m.step}`;
}

/** The sentence an alert adds for its co-movers: `; at its onset: a, b` ('' when none). */
export function coMoversClause(changed: readonly CoMover[] | undefined): string {
  return changed && changed.length > 0
    ? `; what changed with it: ${changed.map(coMoverText).join(', ')}`
    : '';
}
