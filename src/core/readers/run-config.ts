// A run's effective configuration: its own config file beside the metrics (config.json, config.yaml, Hydra's) over what its sources carry (W&B config).

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isReadError } from './file-cursor';
import { readSideFile } from './side-file';
import { decodeUtf8 } from './values';
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
    const config = await readConfigFile(join(dir, name), dir);
    if (config !== null) return config;
  }
  return null;
}

/** A config file of the run in `dir`, read as every side file is (`readSideFile`: never through a link out of it). */
async function readConfigFile(path: string, dir: string): Promise<RunConfig | null> {
  const got = await readSideFile(path, dir, MAX_CONFIG_BYTES);
  if (isReadError(got)) return null;
  try {
    const text = decodeUtf8(got.bytes);
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
