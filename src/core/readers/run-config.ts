// A run's effective configuration: its own config file beside the metrics (config.json, config.yaml, Hydra's) over what its sources carry (W&B config).

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isReadError } from './file-cursor';
import { readSideFile } from './side-file';
import { decodeUtf8 } from './values';
import { isRecord, MAX_YAML_BYTES, parseYamlSliced } from './yaml-document';

export type RunConfig = Record<string, unknown>;

/** A config.json is small; anything bigger is not a config and is ignored (YAML ones: MAX_YAML_BYTES, reported). */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** The config files a run folder may hold, in the order tried: the first that parses to a mapping is the run's. */
export const RUN_CONFIG_FILES = [
  'config.json',
  'config.yaml',
  'config.yml',
  join('.hydra', 'config.yaml'),
] as const;

/** The names in a run folder that say one of RUN_CONFIG_FILES may be there (`.hydra` for `.hydra/config.yaml`). */
export const RUN_CONFIG_ENTRIES: ReadonlySet<string> = new Set(
  RUN_CONFIG_FILES.map((f) => f.split(/[\\/]/)[0]!),
);

/**
 * The run folder's own config: the first of RUN_CONFIG_FILES that exists, is at most 4 MB (a YAML one
 * MAX_YAML_BYTES) and parses to a mapping (JSON, or YAML through the bounded reader, in slices); null when there is
 * none. A YAML file too large or that does not parse is told to `onError`, named as in RUN_CONFIG_FILES (the next
 * file is tried). One listing of the folder says which exist (a folder of thousands of runs, most with no config,
 * costs one call per run, not one per name); `listed`, the RUN_CONFIG_ENTRIES a listing of `dir` just made holds
 * (discovery's), stands for it: the folder is not listed again.
 */
export async function readRunConfig(
  dir: string,
  onError: (message: string) => void = () => {},
  listed?: readonly string[],
): Promise<RunConfig | null> {
  let entries: ReadonlySet<string>;
  try {
    entries = new Set(listed ?? (await readdir(dir)));
  } catch {
    return null;
  }
  for (const name of RUN_CONFIG_FILES) {
    // `.hydra/config.yaml` is tried when `.hydra` is there.
    if (!entries.has(name.split(/[\\/]/)[0]!)) continue;
    const config = await readConfigFile(dir, name, onError);
    if (config !== null) return config;
  }
  return null;
}

/**
 * A config file of the run in `dir`, read as every side file is (`readSideFile`: never through a link out of it); a
 * YAML one over MAX_YAML_BYTES or that does not parse is told to `onError`.
 */
async function readConfigFile(
  dir: string,
  name: string,
  onError: (message: string) => void,
): Promise<RunConfig | null> {
  const json = name.endsWith('.json');
  const got = await readSideFile(join(dir, name), dir, json ? MAX_CONFIG_BYTES : MAX_YAML_BYTES);
  if (isReadError(got)) {
    if (!json && got.kind === 'too-large') onError(`${name} over ${MAX_YAML_BYTES} bytes`);
    return null;
  }
  try {
    const text = decodeUtf8(got.bytes);
    if (json) {
      const parsed: unknown = JSON.parse(text);
      return isRecord(parsed) ? parsed : null;
    }
    const r = await parseYamlSliced(text, name);
    if (!r.ok) onError(r.message);
    return r.ok && isRecord(r.value) ? r.value : null;
  } catch {
    return null;
  }
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
