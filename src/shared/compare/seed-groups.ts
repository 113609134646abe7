// Seed groups: runs that differ only in their seed (their config without seed-like and identity keys, or a name pattern), and each group's name.

import { formatFull } from '../format';

/** Keys that hold a seed: `seed`, `random_seed`, `seed_value`, `env.seed`, `torch_seed`, `SEED`, `seeds`. */
const SEED_KEY =
  /(^|[._/-])((random|rng|torch|np|numpy|env|data|python|global|train|eval)[_-]?)?seeds?([_-]value)?$/i;

/** Keys that name or place one run rather than configure it (they differ per seed run by construction). */
const IDENTITY_KEY =
  /(^|\.)(output_dir|logging_dir|log_dir|save_dir|checkpoint_dir|run_name|exp_name|experiment_name|run_id|wandb_run_id|hub_model_id|timestamp|start_time|date|_wandb(\..*)?)$/i;

/** The default run-name pattern: a seed written into the name (`ppo_seed3`, `grpo-s2`, `run_seed=4`). */
export const DEFAULT_SEED_NAME = /[_-]?(seed|s)[_=-]?\d+/i;

/** Most config keys a run contributes when flattened (a huge config is cut, not walked forever). */
const MAX_KEYS = 5000;
const MAX_DEPTH = 8;

export const isSeedKey = (key: string): boolean => SEED_KEY.test(key);
export const isIdentityKey = (key: string): boolean => IDENTITY_KEY.test(key);

/** A config as dotted keys → leaf values (arrays are leaves; W&B's `{value, desc}` wrapper is unwrapped). */
export function flattenConfig(config: Record<string, unknown>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const walk = (v: unknown, prefix: string, depth: number): void => {
    if (out.size >= MAX_KEYS) return;
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && depth < MAX_DEPTH) {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o);
      // W&B config.yaml: every key is {desc, value}.
      if (keys.includes('value') && keys.every((k) => k === 'value' || k === 'desc'))
        return walk(o.value, prefix, depth + 1);
      for (const k of keys) walk(o[k], prefix === '' ? k : `${prefix}.${k}`, depth + 1);
      return;
    }
    if (prefix !== '') out.set(prefix, v);
  };
  walk(config, '', 0);
  return out;
}

export interface SeedGroup {
  /** What sets the group apart: the config keys whose values differ between groups (`learning_rate=3e-4`), else
   * its runs' common name prefix, else its first run's name with the seed part removed (groupLabels). */
  label: string;
  /** Run names, in the order given. */
  runs: string[];
  /** How the group was found. */
  by: 'config' | 'name';
  /** The seed keys (or the name parts) in which its runs differ. */
  seeds: string[];
}

export interface SeedGroupOptions {
  /** Group by run name with this pattern's matches removed instead of by config (the user's edit). */
  namePattern?: RegExp;
}

const stripName = (name: string, pattern: RegExp): string =>
  name.replace(
    new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`),
    '',
  );

/** Runs that differ only in their seed, as groups of two or more. By config where a run has one (every key but the
 * seed-like and identity ones equal), else (or when its config holds only identity keys) by the default name pattern;
 * by name alone when a pattern is given. */
export function groupBySeed(
  runs: readonly { run: string; config: Record<string, unknown> | null }[],
  o: SeedGroupOptions = {},
): SeedGroup[] {
  const groups = new Map<string, SeedGroup>();
  /** Each config group's kept keys (every run of a group has the same). */
  const settings = new Map<string, Map<string, unknown>>();
  const add = (key: string, run: string, by: SeedGroup['by'], seeds: string[], label: string): void => {
    const g = groups.get(key);
    if (g) {
      g.runs.push(run);
      for (const s of seeds) if (!g.seeds.includes(s)) g.seeds.push(s);
    } else groups.set(key, { label, runs: [run], by, seeds: [...seeds] });
  };
  for (const r of runs) {
    const pattern = o.namePattern ?? DEFAULT_SEED_NAME;
    const label = stripName(r.run, pattern) || r.run;
    const flat = o.namePattern === undefined && r.config !== null ? flattenConfig(r.config) : null;
    const kept: [string, unknown][] = [];
    const seeds: string[] = [];
    for (const [k, v] of flat ?? []) {
      if (isSeedKey(k)) seeds.push(k);
      else if (!isIdentityKey(k)) kept.push([k, v]);
    }
    // A config with nothing in it but identity and bookkeeping keys (W&B's `_wandb` alone) says nothing about the
    // run's setup: such runs are grouped by name, as runs without a config are, not all into one group.
    if (flat !== null && (kept.length > 0 || seeds.length > 0)) {
      kept.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      const key = `config\u0000${JSON.stringify(kept)}`;
      add(key, r.run, 'config', seeds, label);
      if (!settings.has(key)) settings.set(key, new Map(kept));
    } else {
      const pat = stripName(r.run, pattern);
      if (pat === r.run) continue;
      add(`name\u0000${pat}`, r.run, 'name', ['run name'], label);
    }
  }
  const found = [...groups].filter(([, g]) => g.runs.length >= 2);
  // Named by what sets them apart from the other groups; one group alone, by what sets it apart from the other runs.
  const byConfig = found.filter(([k]) => settings.has(k));
  const among = byConfig.length >= 2 ? byConfig.map(([k]) => k) : [...settings.keys()];
  const labels = settingLabels(among.map((k) => settings.get(k)!));
  const labelOf = new Map(among.map((k, i) => [k, labels[i]!]));
  // Else the name without its seed part (`ppo_seed1` → `ppo`), else the runs' common prefix (`PPO_1`, `PPO_2` → `PPO`).
  for (const [k, g] of found)
    g.label = labelOf.get(k) || (g.label !== g.runs[0] ? g.label : commonPrefix(g.runs) || g.label);
  return found.map(([, g]) => g);
}

/** Config keys a group's name shows at most (the ones with the most distinct values among the groups). */
export const LABEL_KEYS = 3;
/** Characters of one value in a name at most (a longer one is cut with an ellipsis). */
const VALUE_CHARS = 24;

/** A number as a config writes it: every digit, values under 0.01 with an exponent (`1e-3`, `3e-4`). */
function numberText(v: number): string {
  const t = formatFull(v);
  return v !== 0 && Math.abs(v) < 0.01 && !t.includes('e') ? Number(t).toExponential() : t;
}

const valueText = (v: unknown): string => {
  const t =
    typeof v === 'number' ? numberText(v) : typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return t.length > VALUE_CHARS ? `${t.slice(0, VALUE_CHARS - 1)}…` : t;
};

/**
 * Per setting (a config group's keys), its name: the keys whose values are not the same in all of them, as
 * `key=value` joined by ', ' (at most LABEL_KEYS keys, those with the most distinct values, listed by name; a key by
 * its last dotted part where that is unambiguous). '' for a setting no key sets apart.
 */
export function settingLabels(settings: readonly ReadonlyMap<string, unknown>[]): string[] {
  if (settings.length < 2) return settings.map(() => '');
  const keys = new Set(settings.flatMap((s) => [...s.keys()]));
  const varying: { key: string; distinct: number }[] = [];
  for (const key of keys) {
    const values = new Set(settings.map((s) => (s.has(key) ? JSON.stringify(s.get(key)) : '\u0000absent')));
    if (values.size > 1) varying.push({ key, distinct: values.size });
  }
  varying.sort((a, b) => b.distinct - a.distinct || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  // The keys kept are those with the most distinct values; they are listed by name, so a name reads the same
  // whichever groups are shown.
  const shown = varying
    .slice(0, LABEL_KEYS)
    .map((v) => v.key)
    .sort();
  const leaf = (k: string): string => k.slice(k.lastIndexOf('.') + 1);
  const short = (k: string): string =>
    shown.filter((o) => leaf(o) === leaf(k)).length === 1 && !keys.has(leaf(k)) ? leaf(k) : k;
  return settings.map((s) =>
    shown
      .filter((k) => s.has(k))
      .map((k) => `${short(k)}=${valueText(s.get(k))}`)
      .join(', '),
  );
}

/** The runs' common name prefix without a trailing separator ('' when under 2 characters are shared). */
export function commonPrefix(runs: readonly string[]): string {
  if (runs.length === 0) return '';
  let p = runs[0]!;
  for (const r of runs) while (!r.startsWith(p)) p = p.slice(0, -1);
  p = p.replace(/[\s_\-./=:]+$/, '');
  return p.length >= 2 ? p : '';
}

/** What a group folds, for its name: `seed ×3` (its seed keys and run count), `3 runs` when no seed key differs. */
export function groupFolds(g: Pick<SeedGroup, 'runs' | 'seeds'>, count = g.runs.length): string {
  return g.seeds.length > 0 ? `over ${g.seeds.join(', ')} ×${count}` : `${count} runs`;
}

/** A group's name wherever it is listed (legend, readout, table, CSV): `learning_rate=3e-4 (over seed ×3)`. */
export function groupTitle(g: Pick<SeedGroup, 'label' | 'runs' | 'seeds'>, count = g.runs.length): string {
  return `${g.label} (${groupFolds(g, count)})`;
}

/** A group's members, for its hover: `learning_rate=3e-4 over seed: ppo_1, ppo_2, ppo_3`. */
export function groupMembers(g: Pick<SeedGroup, 'label' | 'runs' | 'seeds'>): string {
  return `${g.label}${g.seeds.length > 0 ? ` over ${g.seeds.join(', ')}` : ''}: ${g.runs.join(', ')}`;
}
