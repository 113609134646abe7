// Resolves health thresholds: user settings → the run's own config (nested, W&B {value}) → seed defaults.

import type { ThresholdKey } from '../../shared/catalog';
import type { ResolvedThreshold } from '../../shared/domain';

export interface Thresholds extends Record<ThresholdKey, number> {
  /** Reward plateau: blocks without improvement (seed 003: "5+ epochs"). */
  plateau_epochs: number;
  /** Points per block when reward is logged per step rather than per epoch. */
  plateau_block: number;
  /** A run shows as stalled (its status, a `run` line) after this many seconds of silence at least… */
  stall_floor_s: number;
  /** …and this many of its typical gaps between writes (its own rhythm: a PyTorch writer flushing every 120 s is
   * stalled after 5 min, a CSV logger writing every 2 s after the floor). */
  stall_gap_factor: number;
  /** The stalled-run alert (a notification) comes later: after this many seconds… */
  stall_alert_floor_s: number;
  /** …and this many typical gaps. A run that simply ended shows stalled; only a long silence is an alert. */
  stall_alert_gap_factor: number;
  /** While a process attributed to the run is alive, its silence is a hang: the alert comes after this floor. */
  stall_hang_floor_s: number;
  /** GPU idle only counts while a training metric arrived within this many seconds (data time). */
  training_active_s: number;
}

export type ThresholdName = keyof Thresholds;

export const DEFAULT_THRESHOLDS: Readonly<Thresholds> = {
  target_kl: 0.02, // seed 004: "< target_kl (config 0.02)"
  entropy_min: 0.5, // seed 004: "stays above entropy_min (0.5)"
  clip_low: 0.1, // seed 004: clipfrac 0.1 – 0.3
  clip_high: 0.3,
  max_grad_norm: 1.0, // seed 004 names it; 1.0 is the HF/TRL default
  reward_variance_max: 0.01, // seed 000: "Should be low (< 0.01)"
  min_tokens_per_sec: 1, // seed 000: "If < 1.0, consider enabling MLX"
  gpu_util_min: 50, // seed 000: "Should be > 50%"
  memory_max: 90, // seed 000: "Monitor for OOM warnings (> 90%)"
  gpu_memory_max: 95,
  temperature_min: 0.5, // seed 004: current_temperature 0.5 – 2.0
  temperature_max: 2.0,
  importance_ratio_tolerance: 0.2,
  truncation_max: 0.2,
  plateau_epochs: 5, // seed 003
  plateau_block: 20,
  // A crash or hang is to be reported within max(3 × the logging interval, 30 s) of the last write; these leave
  // room for the watcher's and the tick's delays inside that.
  stall_floor_s: 25,
  stall_gap_factor: 2.5,
  stall_alert_floor_s: 600,
  stall_alert_gap_factor: 10,
  stall_hang_floor_s: 120,
  training_active_s: 600,
};

/** Config keys (leaf names, lower case) that set a threshold; the first that is present wins. */
const CONFIG_KEYS: Partial<Record<ThresholdName, readonly string[]>> = {
  target_kl: ['target_kl', 'kl_target', 'target_kl_divergence'],
  entropy_min: ['entropy_min', 'min_entropy'],
  max_grad_norm: ['max_grad_norm', 'grad_clip', 'clip_grad_norm', 'gradient_clipping', 'max_norm'],
  temperature_min: ['min_temperature', 'temperature_min'],
  temperature_max: ['max_temperature', 'temperature_max'],
};

/** Config values that are not thresholds but explain them (shown with alerts and in advice). */
const CONTEXT_KEYS = {
  beta: ['beta'],
  kl_coef: ['kl_coef', 'init_kl_coef', 'kl_coeff', 'kl_penalty_coef'],
  clip_ratio: ['clip_ratio', 'cliprange', 'clip_range', 'epsilon', 'clip_eps'],
} as const;

export type ThresholdSource = { kind: 'user' } | { kind: 'config'; key: string } | { kind: 'default' };

export interface ResolvedThresholds {
  values: Thresholds;
  sources: Record<ThresholdName, ThresholdSource>;
  context: { beta: number | null; kl_coef: number | null; clip_ratio: number | null };
}

function asNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/**
 * Flattens a config to leaf-name → value, depth-first, first occurrence wins. W&B's config.yaml
 * wraps every entry as `{value: x, desc: …}`, so an object with a `value` key is a leaf.
 */
export function flattenConfig(config: unknown): Map<string, { path: string; value: number }> {
  const out = new Map<string, { path: string; value: number }>();
  const seen = new Set<unknown>();
  const walk = (node: unknown, path: string, depth: number): void => {
    if (depth > 8 || node === null || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
      const p = path ? `${path}.${k}` : k;
      const leaf = v !== null && typeof v === 'object' && !Array.isArray(v) && 'value' in v ? v.value : v;
      const n = asNumber(leaf);
      const key = k.toLowerCase();
      if (n !== null) {
        if (!out.has(key)) out.set(key, { path: p, value: n });
      } else if (leaf !== null && typeof leaf === 'object') {
        walk(leaf, p, depth + 1);
      }
    }
  };
  walk(config, '', 0);
  return out;
}

/** Pure: the thresholds for one run and where each came from. Non-finite user values are ignored. */
export function resolveThresholds(
  user: Partial<Thresholds> | null | undefined,
  runConfig: unknown,
): ResolvedThresholds {
  const flat = flattenConfig(runConfig);
  const values = { ...DEFAULT_THRESHOLDS };
  const sources = {} as Record<ThresholdName, ThresholdSource>;
  for (const name of Object.keys(DEFAULT_THRESHOLDS) as ThresholdName[]) {
    const u = user?.[name];
    if (typeof u === 'number' && Number.isFinite(u)) {
      values[name] = u;
      sources[name] = { kind: 'user' };
      continue;
    }
    const hit = (CONFIG_KEYS[name] ?? []).map((k) => flat.get(k)).find((x) => x !== undefined);
    // A zero or negative target from a config (e.g. `target_kl: null` → 0, or "disabled") would
    // make a rule fire on every point; such values mean "off" in the trainers, so keep the default.
    if (hit && hit.value > 0) {
      values[name] = hit.value;
      sources[name] = { kind: 'config', key: hit.path };
      continue;
    }
    sources[name] = { kind: 'default' };
  }
  const ctx = (keys: readonly string[]): number | null =>
    keys.map((k) => flat.get(k)?.value).find((x) => x !== undefined) ?? null;
  return {
    values,
    sources,
    context: {
      beta: ctx(CONTEXT_KEYS.beta),
      kl_coef: ctx(CONTEXT_KEYS.kl_coef),
      clip_ratio: ctx(CONTEXT_KEYS.clip_ratio),
    },
  };
}

/** The thresholds the user or the run's config set: a rule derives the others from the run where it can. */
export function explicitNames(resolved: ResolvedThresholds): ThresholdName[] {
  return (Object.keys(resolved.sources) as ThresholdName[]).filter(
    (k) => resolved.sources[k].kind !== 'default',
  );
}

/** The values of the thresholds the user or the run's config set: what healthy bands are drawn with (a rule that
 * derives its line from the run while its threshold is unset draws none; the others fall back to the catalog's). */
export function setValues(resolved: ResolvedThresholds): Partial<Thresholds> {
  return Object.fromEntries(explicitNames(resolved).map((k) => [k, resolved.values[k]]));
}

/** The resolved thresholds as the contract carries them (RunDetails.thresholds): value, origin and config path. */
export function thresholdTable(resolved: ResolvedThresholds): Record<string, ResolvedThreshold> {
  const out: Record<string, ResolvedThreshold> = {};
  for (const key of Object.keys(resolved.values) as ThresholdName[]) {
    const value = resolved.values[key];
    const source = resolved.sources[key];
    out[key] =
      source.kind === 'config'
        ? { key, value, origin: 'run-config', configPath: source.key }
        : { key, value, origin: source.kind };
  }
  return out;
}
