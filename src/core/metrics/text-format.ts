// Prometheus' text exposition format (0.0.4) written directly, byte for byte as prom-client writes it, for families too wide for its registry.

/** Characters a label value escapes: backslash, newline and double quote. */
const LABEL_SPECIAL = /[\\\n"]/;

/** A label value as it stands between the quotes: `\` → `\\`, newline → `\n`, `"` → `\"` (prom-client's order). */
export function escapeLabelValue(value: string): string {
  if (!LABEL_SPECIAL.test(value)) return value;
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

/** A HELP text: `\` → `\\`, newline → `\n` (quotes stay). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A sample's value as prom-client writes it: `Nan`, `+Inf`, `-Inf` or JavaScript's shortest round-trip form. */
export function sampleValue(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return `${value}`;
}

/** A label set `{a="…",b="…"}` from names (valid label names) and values made safe by `boundLabel`, in order. */
export function labelSet(names: readonly string[], values: readonly string[]): string {
  let s = '{';
  for (let i = 0; i < names.length; i++) {
    if (i > 0) s += ',';
    s += `${names[i]}="${escapeLabelValue(values[i]!)}"`;
  }
  return `${s}}`;
}

/**
 * A gauge family kept as its sample lines, not as a prom-client Gauge: setting 10⁵ series through a registry
 * hashes and stores a labels object per series, and formatting them allocates several strings more each
 * (bench/metrics.bench.ts). Samples are kept in the order they are added; the caller adds each label set once.
 */
export class TextGauge {
  private lines: string[] = [];

  constructor(
    readonly name: string,
    private readonly help: string,
  ) {}

  reset(): void {
    this.lines = [];
  }

  /** One sample; `labels` is a label set from `labelSet`. */
  add(labels: string, value: number): void {
    this.lines.push(`${this.name}${labels} ${sampleValue(value)}`);
  }

  /** The family as prom-client's registry writes one: HELP, TYPE, then a line per sample, no newline at the end.
   * The samples are let go (until the next scrape adds them again, the lines would be megabytes held for nothing). */
  take(): string {
    const head = `# HELP ${this.name} ${escapeHelp(this.help)}\n# TYPE ${this.name} gauge`;
    const text = this.lines.length === 0 ? head : `${head}\n${this.lines.join('\n')}`;
    this.lines = [];
    return text;
  }
}
