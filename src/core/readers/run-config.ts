// A run's effective configuration: its own config.json beside the metrics over what its sources carry (W&B config).

import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

export type RunConfig = Record<string, unknown>;

/** Config files are small; anything bigger is not a config and is ignored. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** The parsed config.json of a run folder, or null when there is none or it is not a JSON object. */
export async function readRunConfig(dir: string): Promise<RunConfig | null> {
  const path = join(dir, 'config.json');
  try {
    if ((await stat(path)).size > MAX_CONFIG_BYTES) return null;
    const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as RunConfig)
      : null;
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
