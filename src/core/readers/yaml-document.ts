// Any YAML document (a config file) parsed with the `yaml` package, bounded: too large or hostile input is a typed error.

import type * as Yaml from 'yaml';
import { lazyModule } from './lazy-module';

/** yaml, loaded on the first YAML file parsed (it is most of a short command's start-up otherwise). */
const yaml = lazyModule<typeof Yaml>('yaml');

/**
 * Config files are a few kB (verl's whole PPO config, flattened, is 15 kB; a W&B run's config.yaml with its
 * metric list a few tens); anything past this is not one, and is a typed `too-large` error. It also bounds the
 * part of a parse that runs in one piece (composing the nodes, then the plain copy: about a third of it).
 */
export const MAX_YAML_BYTES = 128 << 10;
/**
 * Values (keys included) the plain copy may hold once aliases are expanded: a document within MAX_YAML_BYTES
 * holds fewer than 1.5 a byte (`[:,:,…]`; `[0,0,…]` 0.5), so only aliases reach this (a YAML bomb: one list
 * aliased a thousand times).
 */
const MAX_YAML_VALUES = 2 * MAX_YAML_BYTES;
/** Nesting of the plain copy; real configs nest a dozen deep, a chain of aliases of aliases can nest without end. */
const MAX_YAML_DEPTH = 256;
/**
 * The `yaml` package parses a few hundred kB a second: `parseYamlSliced` hands the event loop back after this
 * long of lexing and parsing (only the document's last step, composing its nodes, runs in one piece).
 */
const SLICE_MS = 10;
/** Lexemes between two looks at the clock. */
const LEXEMES_PER_STEP = 256;

export type YamlResult =
  | { ok: true; value: unknown }
  | { ok: false; kind: 'too-large' | 'decode'; message: string };

/**
 * The document as plain data (maps to objects, `__proto__` keys dropped, an alias a copy of its anchor's value),
 * or a typed error naming `name`: `too-large` over `maxBytes`, `decode` when it does not parse or expands past
 * MAX_YAML_VALUES values or MAX_YAML_DEPTH levels. In one piece: for small documents (an MLflow meta.yaml).
 */
export function parseYaml(source: string, name = 'config.yaml', maxBytes = MAX_YAML_BYTES): YamlResult {
  const steps = parseSteps(source, name, maxBytes);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** `parseYaml`, handing the event loop back every SLICE_MS while it lexes and parses: for config files. */
export async function parseYamlSliced(
  source: string,
  name = 'config.yaml',
  maxBytes = MAX_YAML_BYTES,
): Promise<YamlResult> {
  const steps = parseSteps(source, name, maxBytes);
  let since = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - since < SLICE_MS) continue;
    await new Promise((resolve) => setImmediate(resolve));
    since = performance.now();
  }
}

/** Parses `source`, yielding between runs of LEXEMES_PER_STEP lexemes; returns the result. */
function* parseSteps(source: string, name: string, maxBytes: number): Generator<void, YamlResult> {
  if (source.length > maxBytes)
    return { ok: false, kind: 'too-large', message: `${name} over ${maxBytes} bytes` };
  try {
    const lib = yaml();
    // What `parseDocument` does, one lexeme at a time.
    const parser = new lib.Parser();
    const composer = new lib.Composer({ uniqueKeys: false });
    const docs: Yaml.Document.Parsed[] = [];
    let n = 0;
    for (const lexeme of new lib.Lexer().lex(source, false)) {
      for (const token of parser.next(lexeme)) docs.push(...composer.next(token));
      if (++n % LEXEMES_PER_STEP === 0) yield;
    }
    for (const token of parser.end()) docs.push(...composer.next(token));
    docs.push(...composer.end(true, source.length));
    const doc = docs[0]!;
    if (doc.errors.length > 0)
      return { ok: false, kind: 'decode', message: `${name}: ${doc.errors[0]!.message}` };
    if (docs.length > 1) return { ok: false, kind: 'decode', message: `${name}: more than one document` };
    return { ok: true, value: new PlainCopy(lib).of(doc.contents, 0) };
  } catch (e) {
    return { ok: false, kind: 'decode', message: `${name}: ${e instanceof Error ? e.message : String(e)}` };
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A parsed document's plain copy, made in one walk in document order: an alias is resolved when the walk first
 * meets it (to the last node before it with that anchor, as YAML says) and copied wherever it is met, each copy
 * counted against MAX_YAML_VALUES, so a bomb stops after that many values, not after the heap is spent. (The
 * package's own `toJS` shares an alias's value and scans the document per alias; copying those shared values, as
 * callers must to keep them apart, is what grew without bound.)
 */
class PlainCopy {
  /** The last node seen with each anchor, during the walk in document order (not while copying an alias). */
  private readonly anchors = new Map<string, Yaml.Node>();
  /** What each alias met so far refers to. */
  private readonly targets = new Map<Yaml.Alias, Yaml.Node>();
  /** Anchored nodes being walked: an alias to one of them is an alias to itself. */
  private readonly open = new Set<Yaml.Node>();
  /** Inside a copy of an alias's value (anchors there are not new). */
  private copying = 0;
  private values = 0;
  private aliased = false;

  constructor(private readonly lib: typeof Yaml) {}

  of(node: unknown, depth: number): unknown {
    if (depth > MAX_YAML_DEPTH) throw new Error(`nested deeper than ${MAX_YAML_DEPTH} levels`);
    if (++this.values > MAX_YAML_VALUES)
      throw new Error(
        this.aliased
          ? `too many aliased nodes (over ${MAX_YAML_VALUES} values once its aliases are expanded)`
          : `too many values (over ${MAX_YAML_VALUES})`,
      );
    const { lib } = this;
    if (lib.isAlias(node)) return this.alias(node, depth);
    if (!lib.isNode(node)) return node ?? null;
    const anchored = this.copying === 0 && node.anchor !== undefined;
    if (anchored) {
      this.anchors.set(node.anchor!, node);
      this.open.add(node);
    }
    try {
      if (lib.isScalar(node)) return scalarValue(node.value);
      if (lib.isMap(node) && node.tag === 'tag:yaml.org,2002:set')
        return node.items.map((p) => this.of(p.key, depth + 1));
      if (lib.isMap(node) || (lib.isSeq(node) && node.items.some((x) => lib.isPair(x))))
        return this.mapping(node.items as unknown[], depth);
      if (lib.isSeq(node)) return node.items.map((x) => this.of(x, depth + 1));
      return null;
    } finally {
      if (anchored) this.open.delete(node);
    }
  }

  /** A mapping's pairs (or an omap's) as an object; keys as the package writes them, `__proto__` dropped. */
  private mapping(items: readonly unknown[], depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const item of items) {
      const pair = this.lib.isPair(item) ? item : null;
      const key = pair ? this.of(pair.key, depth + 1) : this.of(item, depth + 1);
      const value = pair ? this.of(pair.value, depth + 1) : null;
      const name =
        key === null
          ? ''
          : typeof key === 'object' && !(key instanceof Date)
            ? JSON.stringify(key)
            : String(key);
      if (name !== '__proto__') out[name] = value;
    }
    return out;
  }

  private alias(node: Yaml.Alias, depth: number): unknown {
    let target = this.targets.get(node);
    if (target === undefined) {
      target = this.anchors.get(node.source);
      if (target === undefined) throw new Error(`alias *${node.source} has no anchor before it`);
      if (this.open.has(target)) throw new Error(`alias *${node.source} is inside its own anchor`);
      this.targets.set(node, target);
    }
    this.aliased = true;
    this.values--; // the alias is its value, counted as that is copied
    this.copying++;
    try {
      return this.of(target, depth);
    } finally {
      this.copying--;
    }
  }
}

/** A scalar's value as data: numbers, strings, booleans, null and dates as they are; anything else as text. */
function scalarValue(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'object' && !(v instanceof Date)) return String(v);
  return v;
}
