// Test helper: reads Prometheus text exposition into samples (name, labels, value), as a scraper would.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

// `s`: a label value may hold a carriage return (only backslash, newline and quote are escaped).
const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/s;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    const raw = m[3]!;
    out.push({
      name: m[1]!,
      labels,
      value: raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw),
    });
  }
  return out;
}

/** Samples of `name` whose labels include `where`. */
export function samples(all: Sample[], name: string, where: Record<string, string> = {}): Sample[] {
  return all.filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v));
}
