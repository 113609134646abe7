// W&B's files/config.yaml parsed with the `yaml` package, bounded: too large or hostile input is a typed error.

import type * as Yaml from 'yaml';
import { lazyModule } from '../readers/lazy-module';

/** yaml, loaded on the first config.yaml parsed (it is most of a short command's start-up otherwise). */
const yaml = lazyModule<typeof Yaml>('yaml');

/** W&B configs are a few kB; anything past this is not one. */
export const MAX_CONFIG_YAML_BYTES = 4 << 20;
/** Alias expansions allowed (a billion-laughs file fails fast instead of growing without bound). */
const MAX_ALIAS_COUNT = 1_000;

export type ConfigYamlResult =
  | { ok: true; config: Record<string, unknown> }
  | { ok: false; kind: 'too-large' | 'decode'; message: string };

/** Any YAML document as plain data (maps to objects, `__proto__` keys dropped), or a typed error. */
export function parseYaml(
  source: string,
): { ok: true; value: unknown } | Exclude<ConfigYamlResult, { ok: true }> {
  if (source.length > MAX_CONFIG_YAML_BYTES)
    return { ok: false, kind: 'too-large', message: `config.yaml over ${MAX_CONFIG_YAML_BYTES} bytes` };
  try {
    const doc = yaml().parseDocument(source, { uniqueKeys: false, prettyErrors: false });
    if (doc.errors.length > 0)
      return { ok: false, kind: 'decode', message: `config.yaml: ${doc.errors[0]!.message}` };
    return { ok: true, value: withoutProtoKeys(doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT })) };
  } catch (e) {
    return {
      ok: false,
      kind: 'decode',
      message: `config.yaml: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
}

/** W&B's config.yaml: `{key: {desc, value}}` unwrapped to `{key: value}`; `wandb_version` dropped. */
export function parseWandbConfigYaml(source: string): ConfigYamlResult {
  const parsed = parseYaml(source);
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

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Plain copies of maps and lists without `__proto__` keys (they would reach Object.prototype on spread). */
function withoutProtoKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutProtoKeys);
  if (v instanceof Map) v = Object.fromEntries([...v].map(([k, x]) => [String(k), x]));
  if (v instanceof Set) return [...v].map(withoutProtoKeys);
  if (!isRecord(v) || v instanceof Date) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (k !== '__proto__') out[k] = withoutProtoKeys(x);
  return out;
}
