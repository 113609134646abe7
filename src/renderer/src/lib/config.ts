// Flattens a run's config (nested JSON) into dotted key/value rows for the searchable config table.

export interface ConfigRow {
  key: string;
  value: string;
}

/** Nested objects become dotted keys; arrays of scalars are joined, other arrays are shown as JSON. */
export function flattenConfig(
  config: Record<string, unknown>,
  prefix = '',
  out: ConfigRow[] = [],
): ConfigRow[] {
  for (const [k, v] of Object.entries(config)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const entries = Object.keys(v);
      if (entries.length === 0) out.push({ key, value: '{}' });
      else flattenConfig(v as Record<string, unknown>, key, out);
    } else if (Array.isArray(v)) {
      const scalars = v.every((x) => x === null || typeof x !== 'object');
      out.push({ key, value: scalars ? `[${v.map((x) => String(x)).join(', ')}]` : JSON.stringify(v) });
    } else {
      out.push({ key, value: v === null ? 'null' : String(v) });
    }
  }
  return out;
}

/** Rows whose key or value contains the query (case-insensitive). */
export function filterConfig(rows: ConfigRow[], query: string): ConfigRow[] {
  const q = query.trim().toLowerCase();
  if (!q) return rows;
  return rows.filter((r) => r.key.toLowerCase().includes(q) || r.value.toLowerCase().includes(q));
}
