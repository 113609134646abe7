// Seed groups: runs that differ only in their seed (their config without seed-like and identity keys, or a name pattern).

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
  /** What its runs share, as a label: the first run's name with its seed part removed. */
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
      add(`config\u0000${JSON.stringify(kept)}`, r.run, 'config', seeds, label);
    } else {
      const pat = stripName(r.run, pattern);
      if (pat === r.run) continue;
      add(`name\u0000${pat}`, r.run, 'name', ['run name'], label);
    }
  }
  return [...groups.values()].filter((g) => g.runs.length >= 2);
}
