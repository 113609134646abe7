// Seed 003's end-of-epoch summary for runs logging Epoch/* tags: training, evaluation, performance, best/lowest.

import { classifyTag, groupOf, type Role } from '../../shared/catalog';
import type { EpochSummary } from '../../shared/domain';
import type { TagPoints, TagTail } from './tag-tracker';

const EPOCH_TAG = /^epoch[/_]/i;
/** Seed 003's evaluation block (BERTScore, CodeBLEU, BLEU, ROUGE, RUBY) and the usual eval/ prefixes. */
const EVAL_TAG =
  /^(eval|evaluation|val|validation)[/_]|(^|[/_])(bert_?score|code_?bleu|bleu|rouge[\w-]*|ruby|accuracy|exact_match|pass@\d+)$/i;
/** Seed 003 prints Loss, Reward, KL Divergence, Entropy, Learning Rate in this order. */
const TRAINING_ORDER: readonly Role[] = ['loss', 'reward', 'kl', 'entropy', 'learning_rate'];

export interface EpochSource {
  tags: readonly string[];
  tail(tag: string): TagTail | null;
  points(tag: string): TagPoints | null;
}

const rank = (tag: string): number => {
  const role = classifyTag(tag)?.role;
  const i = role ? TRAINING_ORDER.indexOf(role) : -1;
  return i < 0 ? TRAINING_ORDER.length : i;
};

function extreme(
  src: EpochSource,
  tags: readonly string[],
  role: Role,
  better: (a: number, b: number) => boolean,
): { tag: string; value: number; epoch: number } | null {
  const tag = tags.find((t) => classifyTag(t)?.role === role);
  const pts = tag ? src.points(tag) : null;
  if (!tag || !pts) return null;
  let best: { tag: string; value: number; epoch: number } | null = null;
  for (let i = 0; i < pts.values.length; i++) {
    const v = pts.values[i]!;
    if (Number.isFinite(v) && (best === null || better(v, best.value)))
      // Epoch tags are logged at the global step; the epoch is the point's ordinal (1-based), as seed 003 counts.
      best = { tag, value: v, epoch: i + 1 };
  }
  return best;
}

type EpochRow = EpochSummary['sections'][number]['rows'][number];

/**
 * A tag's row: its last value, or where it ends in NaN/±Inf (a Keras validation loss gone NaN) its last
 * finite value with how many non-finite points followed. Without the whole series, the last value as is.
 */
function lastFiniteRow(src: EpochSource, tag: string): EpochRow | null {
  const tail = src.tail(tag);
  if (!tail) return null;
  if (Number.isFinite(tail.lastValue)) return { tag, value: tail.lastValue };
  const pts = src.points(tag);
  if (!pts) return { tag, value: tail.lastValue };
  let i = pts.values.length - 1;
  while (i >= 0 && !Number.isFinite(pts.values[i]!)) i--;
  const nonFiniteAfter = pts.values.length - 1 - i;
  return { tag, value: i >= 0 ? pts.values[i]! : tail.lastValue, nonFiniteAfter };
}

/** Pure: null when the run logs no Epoch/* tag. Values are each tag's last point. */
export function epochSummary(src: EpochSource): EpochSummary | null {
  const epochTags = src.tags.filter((t) => EPOCH_TAG.test(t));
  if (epochTags.length === 0) return null;
  const rows = (tags: string[]): EpochRow[] =>
    tags.map((t) => lastFiniteRow(src, t)).filter((r): r is EpochRow => r !== null);

  const isEval = (t: string): boolean => EVAL_TAG.test(t);
  const isPerf = (t: string): boolean => groupOf(t) === 'Performance';
  const training = [
    ...epochTags.filter((t) => !isEval(t) && !isPerf(t) && groupOf(t) !== 'System'),
    // Learning rate is per step, not per epoch, but seed 003 lists it with the epoch's training metrics.
    ...src.tags.filter((t) => !EPOCH_TAG.test(t) && classifyTag(t)?.role === 'learning_rate').slice(0, 1),
  ].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
  const evaluation = src.tags.filter(isEval).sort();
  const performance = src.tags.filter(isPerf).sort();

  const sections = [
    { title: 'Training Metrics', rows: rows(training) },
    { title: 'Evaluation Metrics', rows: rows(evaluation) },
    { title: 'Performance', rows: rows(performance) },
  ].filter((s) => s.rows.length > 0);

  return {
    epochs: Math.max(0, ...epochTags.map((t) => src.tail(t)?.count ?? 0)),
    sections,
    bestReward: extreme(src, epochTags, 'reward', (a, b) => a > b),
    lowestLoss: extreme(src, epochTags, 'loss', (a, b) => a < b),
  };
}
