// Any YAML document (a config file) parsed with the `yaml` package, bounded: too large or hostile input is a typed error.

import type * as Yaml from 'yaml';
import { lazyModule } from './lazy-module';

/** yaml, loaded on the first YAML file parsed (it is most of a short command's start-up otherwise). */
const yaml = lazyModule<typeof Yaml>('yaml');

/** Config files are a few kB; anything past this is not one. */
export const MAX_YAML_BYTES = 4 << 20;
/** Alias expansions allowed (a billion-laughs file fails fast instead of growing without bound). */
const MAX_ALIAS_COUNT = 1_000;

export type YamlResult =
  | { ok: true; value: unknown }
  | { ok: false; kind: 'too-large' | 'decode'; message: string };

/** The document as plain data (maps to objects, `__proto__` keys dropped), or a typed error naming `name`. */
export function parseYaml(source: string, name = 'config.yaml'): YamlResult {
  if (source.length > MAX_YAML_BYTES)
    return { ok: false, kind: 'too-large', message: `${name} over ${MAX_YAML_BYTES} bytes` };
  try {
    const doc = yaml().parseDocument(source, { uniqueKeys: false, prettyErrors: false });
    if (doc.errors.length > 0)
      return { ok: false, kind: 'decode', message: `${name}: ${doc.errors[0]!.message}` };
    return { ok: true, value: withoutProtoKeys(doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT })) };
  } catch (e) {
    return { ok: false, kind: 'decode', message: `${name}: ${e instanceof Error ? e.message : String(e)}` };
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
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
