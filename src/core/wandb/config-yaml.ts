// W&B's files/config.yaml: `{key: {desc, value}}` unwrapped, parsed by the one bounded YAML reader.

import { isRecord, MAX_YAML_BYTES, parseYamlSliced } from '../readers/yaml-document';

/** W&B configs are a few kB; anything past this is not one. */
export const MAX_CONFIG_YAML_BYTES = MAX_YAML_BYTES;

export type ConfigYamlResult =
  | { ok: true; config: Record<string, unknown> }
  | { ok: false; kind: 'too-large' | 'decode'; message: string };

/** W&B's config.yaml: `{key: {desc, value}}` unwrapped to `{key: value}`; `wandb_version` dropped. */
export async function parseWandbConfigYaml(source: string): Promise<ConfigYamlResult> {
  const parsed = await parseYamlSliced(source);
  if (!parsed.ok) return parsed;
  const doc = parsed.value;
  const config: Record<string, unknown> = {};
  if (!isRecord(doc)) return { ok: true, config };
  for (const [k, v] of Object.entries(doc)) {
    if (k === 'wandb_version') continue;
    config[k] = isRecord(v) && 'value' in v ? v['value'] : v;
  }
  return { ok: true, config };
}
