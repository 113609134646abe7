// The catalog's healthy band and target line for a tag, in the tag's own (raw) units, with user threshold overrides.

import { boundValue, classifyTag, ROLES, type ThresholdKey } from '../../../shared/catalog';

export interface BandInfo {
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
}

/** The band's numbers alone: what the chart options and the overlay plugin draw. */
export type BandRange = Pick<BandInfo, 'min' | 'max' | 'target'>;

/** Catalog info for a tag; null when the catalog does not know the tag. */
export function resolveBand(tag: string, thresholds: Record<string, number> = {}): BandInfo | null {
  const c = classifyTag(tag);
  if (!c) return null;
  const th = thresholds as Partial<Record<ThresholdKey, number>>;
  let min = c.healthy?.min ? boundValue(c.healthy.min, th) : null;
  let max = c.healthy?.max ? boundValue(c.healthy.max, th) : null;
  if (min !== null && !Number.isFinite(min)) min = null;
  if (max !== null && !Number.isFinite(max)) max = null;
  // SB3 logs entropy as `entropy_loss` = −entropy: the band flips with the values.
  if (c.transform === 'negate') [min, max] = [max === null ? null : -max, min === null ? null : -min];
  const target = min !== null && max === null ? min : max !== null && min === null ? max : null;
  return {
    label: ROLES[c.role].label,
    description: c.description,
    advice: c.advice,
    healthyText: c.healthy?.text ?? null,
    min,
    max,
    target,
  };
}

/** `data-band` text: "min,max" with open sides as -Infinity / Infinity; null when there is no band. */
export function bandAttr(b: BandInfo | null): string | null {
  if (!b || (b.min === null && b.max === null)) return null;
  return `${b.min ?? -Infinity},${b.max ?? Infinity}`;
}
