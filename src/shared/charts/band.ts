// The catalog's healthy band and target line for a tag, in the tag's own (raw) units, with the thresholds that set it.

import {
  boundDrawn,
  boundValue,
  classifyTag,
  roleText,
  ROLES,
  type Bound,
  type Role,
  type ThresholdKey,
} from '../catalog';
import type { ResolvedThreshold, RunDetails } from '../domain';
import { formatNumber } from '../format';

/** A named threshold that sets one side of a band, with the value drawn. */
export interface BandThreshold {
  key: ThresholdKey;
  value: number;
}

export interface BandInfo {
  role: Role;
  /** Catalog role label and description (the info tooltip). */
  label: string;
  description: string;
  advice: string | null;
  /** What "healthy" means in words (seed text), shown in the tooltip. */
  healthyText: string | null;
  /** Healthy band in the raw values' units; an open side is null. Both null: no band. */
  min: number | null;
  max: number | null;
  /** A one-sided bound is drawn as a target line as well (KL < target_kl, entropy > entropy_min). */
  target: number | null;
  /** The thresholds behind the band (the tooltip says where each came from). */
  thresholds: BandThreshold[];
}

/** The band's numbers alone: what the chart options and the overlay plugin draw. */
export type BandRange = Pick<BandInfo, 'min' | 'max' | 'target'>;

/**
 * Svelte context key under which the app provides a getter of the open run's details, so the info
 * tip can word the role for the run's world and say where each threshold came from.
 */
export const RUN_DETAILS_CONTEXT = Symbol('run-details');
export type RunDetailsGetter = () => RunDetails | null;

/** The info tip's text for a band on a run: description and advice in the run's world, thresholds with origins. */
export interface BandTip {
  description: string;
  advice: string | null;
  healthyText: string | null;
  thresholdNotes: string[];
}

/** Pure: the tip for `band` on the run of `details` (classic wording until the details say LLM RLHF). */
export function bandTip(band: BandInfo, details: RunDetails | null): BandTip {
  const { description, advice } = roleText(band.role, details?.scope ?? 'classic');
  return {
    description,
    advice,
    healthyText: band.healthyText,
    thresholdNotes: band.thresholds.map((t) => thresholdNote(t, details?.thresholds?.[t.key])),
  };
}

/** Catalog info for a tag; null when the catalog does not know the tag. */
export function resolveBand(tag: string, thresholds: Record<string, number> = {}): BandInfo | null {
  const c = classifyTag(tag);
  if (!c) return null;
  const th = thresholds as Partial<Record<ThresholdKey, number>>;
  // A rule that derives its line from the run (no entropy_min or target_kl set) has no fixed healthy line to draw.
  const lo = c.healthy?.min && boundDrawn(c.healthy.min, th) ? c.healthy.min : undefined;
  const hi = c.healthy?.max && boundDrawn(c.healthy.max, th) ? c.healthy.max : undefined;
  let min = lo ? boundValue(lo, th) : null;
  let max = hi ? boundValue(hi, th) : null;
  if (min !== null && !Number.isFinite(min)) min = null;
  if (max !== null && !Number.isFinite(max)) max = null;
  const named = [lo, hi].filter((b): b is Extract<Bound, { kind: 'threshold' }> => b?.kind === 'threshold');
  // SB3 logs entropy as `entropy_loss` = −entropy: the band flips with the values.
  if (c.transform === 'negate') [min, max] = [max === null ? null : -max, min === null ? null : -min];
  const target = min !== null && max === null ? min : max !== null && min === null ? max : null;
  const label = ROLES[c.role].label;
  return {
    role: c.role,
    // The values drawn are the tag's own: a negated tag's axis says what it holds (`entropy_loss (−entropy)`).
    label: c.transform === 'negate' ? `${leafName(tag)} (−${label.toLowerCase()})` : label,
    description: c.description,
    advice: c.advice,
    healthyText: c.healthy?.text ?? null,
    min,
    max,
    target,
    thresholds: named.map((b) => ({ key: b.key, value: boundValue(b, th) })),
  };
}

/** The last part of a tag's path (`train/entropy_loss` → `entropy_loss`). */
const leafName = (tag: string): string => tag.slice(tag.lastIndexOf('/') + 1);

/**
 * "target_kl 0.02 (catalog default)": a band threshold and where its value came from, as the run's
 * details resolved it. A drawn value that differs from the resolved one (or with no details yet) is
 * the user's setting unless it is the catalog default; a config is cited only when one set it.
 */
export function thresholdNote(t: BandThreshold, resolved: ResolvedThreshold | undefined): string {
  const fallback = ROLE_FALLBACKS.get(t.key);
  const origin =
    resolved && resolved.value === t.value
      ? resolved.origin === 'run-config'
        ? `run config: ${resolved.configPath ?? t.key}`
        : resolved.origin === 'user'
          ? 'your setting'
          : 'catalog default'
      : !resolved && t.value === fallback
        ? 'catalog default'
        : 'your setting';
  return `${t.key} ${formatNumber(t.value)} (${origin})`;
}

/** Each threshold key's catalog default, as the catalog's bounds name it. */
const ROLE_FALLBACKS: ReadonlyMap<ThresholdKey, number> = new Map(
  Object.values(ROLES).flatMap((r) =>
    [r.healthy?.min, r.healthy?.max]
      .filter((b): b is Extract<Bound, { kind: 'threshold' }> => b?.kind === 'threshold')
      .map((b) => [b.key, b.fallback] as const),
  ),
);

/** `data-band` text: "min,max" with open sides as -Infinity / Infinity; null when there is no band. */
export function bandAttr(b: BandInfo | null): string | null {
  if (!b || (b.min === null && b.max === null)) return null;
  return `${b.min ?? -Infinity},${b.max ?? Infinity}`;
}
