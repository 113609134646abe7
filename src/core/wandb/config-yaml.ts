// A small, safe parser for the YAML subset W&B writes to files/config.yaml (block maps, lists, scalars).
//
// No YAML library is installed; W&B's config.yaml is plain block style: `key:` with nested
// `desc:`/`value:` maps, `- item` lists (also at the key's own indent), plain/quoted scalars.
// Anything outside that subset (anchors, tags, non-empty flow collections) is kept as its raw
// text, never executed or expanded, and the parser never throws.

interface Line {
  indent: number;
  text: string;
}

const MAX_DEPTH = 64;
const MAX_LINES = 200_000;

export function parseYamlSubset(source: string): unknown {
  const lines: Line[] = [];
  for (const raw of source.split(/\r?\n/)) {
    if (lines.length >= MAX_LINES) break;
    const text = stripComment(raw).trimEnd();
    const body = text.trimStart();
    if (body === '' || body === '---' || body === '...') continue;
    lines.push({ indent: text.length - body.length, text: body });
  }
  const p = new Parser(lines);
  return p.block(0, 0);
}

/** W&B's config.yaml: `{key: {desc, value}}` unwrapped to `{key: value}`; `wandb_version` dropped. */
export function parseWandbConfigYaml(source: string): Record<string, unknown> {
  const doc = parseYamlSubset(source);
  const out: Record<string, unknown> = {};
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return out;
  for (const [k, v] of Object.entries(doc)) {
    if (k === 'wandb_version') continue;
    out[k] =
      typeof v === 'object' && v !== null && !Array.isArray(v) && 'value' in v
        ? (v as Record<string, unknown>)['value']
        : v;
  }
  return out;
}

class Parser {
  private i = 0;

  constructor(private readonly lines: Line[]) {}

  /** The block starting at the current line if it is indented at least `min`. */
  block(min: number, depth: number): unknown {
    const line = this.lines[this.i];
    if (!line || line.indent < min) return null;
    if (depth > MAX_DEPTH) {
      this.skipDeeper(line.indent);
      return null;
    }
    return isSeqItem(line.text) ? this.sequence(line.indent, depth) : this.mapping(line.indent, depth);
  }

  private mapping(indent: number, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (
      let line = this.lines[this.i];
      line && line.indent === indent && !isSeqItem(line.text);
      line = this.lines[this.i]
    ) {
      this.i++;
      const colon = keyColon(line.text);
      if (colon < 0) continue; // not `key: value`: outside the subset, ignored
      const key = unquote(line.text.slice(0, colon).trim());
      const rest = line.text.slice(colon + 1).trim();
      let value: unknown;
      if (rest === '|' || rest === '>' || rest === '|-' || rest === '>-')
        value = this.literal(indent, rest[0] === '>');
      else if (rest !== '') value = scalar(rest);
      else {
        const next = this.lines[this.i];
        if (next && (next.indent > indent || (next.indent === indent && isSeqItem(next.text))))
          value = this.block(next.indent, depth + 1);
        else value = null;
      }
      if (key !== '__proto__') out[key] = value;
    }
    return { ...out };
  }

  private sequence(indent: number, depth: number): unknown[] {
    const out: unknown[] = [];
    for (
      let line = this.lines[this.i];
      line && line.indent === indent && isSeqItem(line.text);
      line = this.lines[this.i]
    ) {
      const rest = line.text.slice(1).trimStart();
      const contentIndent = indent + (line.text.length - rest.length);
      if (rest === '') {
        this.i++;
        const next = this.lines[this.i];
        out.push(next && next.indent > indent ? this.block(next.indent, depth + 1) : null);
      } else if (isSeqItem(rest) || keyColon(rest) >= 0) {
        // `- key: v` / `- - v`: the item is a block starting inside this line.
        this.lines[this.i] = { indent: contentIndent, text: rest };
        out.push(this.block(contentIndent, depth + 1));
      } else {
        this.i++;
        out.push(scalar(rest));
      }
    }
    return out;
  }

  private literal(indent: number, folded: boolean): string {
    const parts: string[] = [];
    for (let line = this.lines[this.i]; line && line.indent > indent; line = this.lines[this.i]) {
      parts.push(line.text);
      this.i++;
    }
    return parts.join(folded ? ' ' : '\n');
  }

  private skipDeeper(indent: number): void {
    while (this.lines[this.i] && this.lines[this.i]!.indent >= indent) this.i++;
  }
}

function isSeqItem(text: string): boolean {
  return text === '-' || text.startsWith('- ');
}

/** Index of the `:` ending a mapping key (followed by space or end), outside quotes; -1 if none. */
function keyColon(text: string): number {
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = '';
      continue;
    }
    if ((c === '"' || c === "'") && i === 0) quote = c;
    else if (c === ':' && (i + 1 === text.length || text[i + 1] === ' ')) return i;
  }
  return -1;
}

function stripComment(line: string): string {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || line[i - 1] === ' ' || line[i - 1] === '\t')) return line.slice(0, i);
  }
  return line;
}

function unquote(s: string): string {
  if (s.length >= 2 && s.startsWith("'") && s.endsWith("'")) return s.slice(1, -1).replace(/''/g, "'");
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) {
    try {
      return JSON.parse(s) as string;
    } catch {
      return s.slice(1, -1);
    }
  }
  return s;
}

/** YAML 1.2 core-schema scalars; everything else stays a string. */
export function scalar(s: string): unknown {
  if (s.startsWith('"') || s.startsWith("'")) return unquote(s);
  if (s === '[]') return [];
  if (s === '{}') return {};
  if (s === '~' || s === 'null' || s === 'Null' || s === 'NULL') return null;
  if (s === 'true' || s === 'True' || s === 'TRUE') return true;
  if (s === 'false' || s === 'False' || s === 'FALSE') return false;
  if (/^[-+]?\d+$/.test(s)) return Number(s);
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return Number(s);
  if (/^[-+]?\.(inf|Inf|INF)$/.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/^\.(nan|NaN|NAN)$/.test(s)) return Number.NaN;
  return s;
}
