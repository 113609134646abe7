// Reads a run's own configuration (config.json beside its metrics), so its thresholds apply to it.

import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Config files are small; anything bigger is not a config and is ignored. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** The parsed config.json of a run folder, or null when there is none or it is not a JSON object. */
export async function readRunConfig(dir: string): Promise<Record<string, unknown> | null> {
  const path = join(dir, 'config.json');
  try {
    if ((await stat(path)).size > MAX_CONFIG_BYTES) return null;
    const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
