// A run's effective configuration: its own config file beside the metrics (config.json, config.yaml, Hydra's) over what its sources carry (W&B config).

import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isRecord, parseYaml } from './yaml-document';

export type RunConfig = Record<string, unknown>;

/** Config files are small; anything bigger is not a config and is ignored. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** The config files a run folder may hold, in the order tried: the first that parses to a mapping is the run's. */
export const RUN_CONFIG_FILES = [
  'config.json',
  'config.yaml',
  'config.yml',
  join('.hydra', 'config.yaml'),
] as const;

/**
 * The run folder's own config: the first of RUN_CONFIG_FILES that exists, is at most 4 MB and parses to a
 * mapping (JSON, or YAML through the bounded reader); null when there is none. One listing of the folder says which
 * exist (a folder of thousands of runs, most with no config, costs one call per run, not one per name).
 */
export async function readRunConfig(dir: string): Promise<RunConfig | null> {
  let entries: Set<string>;
  try {
    entries = new Set(await readdir(dir));
  } catch {
    return null;
  }
  for (const name of RUN_CONFIG_FILES) {
    // `.hydra/config.yaml` is tried when `.hydra` is there.
    if (!entries.has(name.split(/[\\/]/)[0]!)) continue;
    const config = await readConfigFile(join(dir, name));
    if (config !== null) return config;
  }
  return null;
}

async function readConfigFile(path: string): Promise<RunConfig | null> {
  try {
    if ((await stat(path)).size > MAX_CONFIG_BYTES) return null;
    const text = await readFile(path, 'utf8');
    const parsed: unknown = path.endsWith('.json') ? JSON.parse(text) : yamlValue(text);
    return isRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

function yamlValue(text: string): unknown {
  const r = parseYaml(text);
  return r.ok ? r.value : null;
}

/**
 * The config a run's thresholds come from: the sources' configs in file order (a later one wins a
 * key), then the run's own config.json over all of them. Null when there is none at all.
 */
export function effectiveConfig(
  own: RunConfig | null,
  fromSources: readonly (RunConfig | null | undefined)[],
): RunConfig | null {
  const present = fromSources.filter((c): c is RunConfig => c != null);
  if (present.length === 0) return own;
  return Object.assign({}, ...present, own) as RunConfig;
}
