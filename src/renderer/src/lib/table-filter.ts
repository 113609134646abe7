// The runs table's filter: plain text matches run names, or an expression over columns (`reward.best > 100 && format == tfevents`).

import type { Cell, TableColumn } from '../../../shared/compare/table-cell';

/**
 * Grammar (whitespace free between tokens):
 *   expr    := and ('||' and)*
 *   and     := unary ('&&' unary)*
 *   unary   := '!' unary | '(' expr ')' | compare
 *   compare := column OP value | word
 *   OP      := '==' | '=' | '!=' | '<' | '<=' | '>' | '>=' | '~' (contains)
 *   value   := number | "text" | 'text' | word
 * A column is named by its id (`reward.best`, `config.lr`), its label, or a config key alone (`lr`), any case.
 * A word on its own matches run names holding it. Values compare as numbers when both sides are numbers, else as
 * text without case; an empty cell matches no comparison. Text with no operator at all is a run-name substring.
 * Chains of any length are flat; parentheses and `!` nest at most MAX_DEPTH deep (deeper is an error value).
 */
export type TableFilter =
  | { ok: true; test: (cells: Record<string, Cell>) => boolean }
  | { ok: false; error: string };

type Token =
  | { t: 'op'; v: string; at: number }
  | { t: 'word'; v: string; at: number }
  | { t: 'text'; v: string; at: number }
  | { t: 'end'; at: number };

type Pred = (cells: Record<string, Cell>) => boolean;

class FilterError extends Error {}

const OPS = ['&&', '||', '==', '!=', '<=', '>=', '<', '>', '=', '~', '!', '(', ')'];
const COMPARE = new Set(['==', '=', '!=', '<', '<=', '>', '>=', '~']);
/** Any of these makes the text an expression; without them it is a run-name substring. */
const EXPRESSION = /&&|\|\||[=<>~!()"']/;
const WORD = /[^\s&|=<>~!()"']/;
/** Parentheses and `!` nested deeper than this are refused (typed by hand, never needed; each level is a stack frame). */
const MAX_DEPTH = 64;

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      let v = '';
      let j = i + 1;
      while (j < text.length && text[j] !== c) {
        if (text[j] === '\\' && j + 1 < text.length) j++;
        v += text[j];
        j++;
      }
      if (j >= text.length) throw new FilterError(`unclosed quote at ${i + 1}`);
      out.push({ t: 'text', v, at: i });
      i = j + 1;
      continue;
    }
    const op = OPS.find((o) => text.startsWith(o, i));
    if (op) {
      out.push({ t: 'op', v: op, at: i });
      i += op.length;
      continue;
    }
    if (c === '&' || c === '|') throw new FilterError(`"${c}" at ${i + 1}: write ${c}${c}`);
    let j = i;
    while (j < text.length && WORD.test(text[j]!)) j++;
    out.push({ t: 'word', v: text.slice(i, j), at: i });
    i = j;
  }
  out.push({ t: 'end', at: text.length });
  return out;
}

/** The column a name means: its id, its label, `config.` + the name, any case; null when none. */
export function resolveColumn(name: string, columns: readonly TableColumn[]): string | null {
  const lower = name.toLowerCase();
  const tries: ((c: TableColumn) => boolean)[] = [
    (c) => c.id === name,
    (c) => c.label === name,
    (c) => c.id === `config.${name}`,
    (c) => c.id.toLowerCase() === lower || c.label.toLowerCase() === lower,
    (c) => c.id.toLowerCase() === `config.${lower}`,
  ];
  for (const t of tries) {
    const hit = columns.find(t);
    if (hit) return hit.id;
  }
  return null;
}

const asNumber = (v: Cell | string): number | null => {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string' || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
};

function compare(cell: Cell, op: string, value: string): boolean {
  if (cell === null) return false;
  const text = String(cell).toLowerCase();
  const want = value.toLowerCase();
  if (op === '~') return text.includes(want);
  const a = asNumber(cell);
  const b = asNumber(value);
  const order = a !== null && b !== null ? a - b : text < want ? -1 : text > want ? 1 : 0;
  switch (op) {
    case '==':
    case '=':
      return order === 0;
    case '!=':
      return order !== 0;
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    default:
      return order >= 0;
  }
}

const nameHas = (word: string): Pred => {
  const w = word.toLowerCase();
  return (cells) =>
    String(cells.run ?? '')
      .toLowerCase()
      .includes(w);
};

function parse(tokens: Token[], columns: readonly TableColumn[]): Pred {
  let i = 0;
  const peek = (): Token => tokens[i]!;
  const isOp = (v: string): boolean => {
    const t = peek();
    return t.t === 'op' && t.v === v;
  };
  const where = (t: Token): string => (t.t === 'end' ? 'at the end' : `at ${t.at + 1}`);

  // Chains are kept flat (`a || b || …` is one some() over its terms, not a closure per `||`), so a long chain
  // costs no stack; only parentheses and `!` nest, and those are bounded by MAX_DEPTH.
  let depth = 0;
  const deeper = (t: Token): void => {
    if (++depth > MAX_DEPTH) throw new FilterError(`nested deeper than ${MAX_DEPTH} levels ${where(t)}`);
  };
  const expr = (): Pred => {
    const terms = [and()];
    while (isOp('||')) {
      i++;
      terms.push(and());
    }
    return terms.length === 1 ? terms[0]! : (c) => terms.some((p) => p(c));
  };
  const and = (): Pred => {
    const terms = [unary()];
    while (isOp('&&')) {
      i++;
      terms.push(unary());
    }
    return terms.length === 1 ? terms[0]! : (c) => terms.every((p) => p(c));
  };
  const unary = (): Pred => {
    const t = peek();
    if (isOp('!')) {
      deeper(t);
      i++;
      const inner = unary();
      depth--;
      return (c) => !inner(c);
    }
    if (isOp('(')) {
      deeper(t);
      i++;
      const inner = expr();
      if (!isOp(')')) throw new FilterError(`expected ")" ${where(peek())}`);
      i++;
      depth--;
      return inner;
    }
    if (t.t !== 'word' && t.t !== 'text')
      throw new FilterError(
        t.t === 'end' ? 'the expression ends too soon' : `unexpected "${t.v}" ${where(t)}`,
      );
    i++;
    const op = peek();
    if (op.t !== 'op' || !COMPARE.has(op.v)) return nameHas(t.v);
    i++;
    const v = peek();
    if (v.t !== 'word' && v.t !== 'text')
      throw new FilterError(`expected a value after "${op.v}" ${where(v)}`);
    i++;
    const id = resolveColumn(t.v, columns);
    if (id === null) throw new FilterError(`no column "${t.v}"`);
    return (c) => compare(c[id] ?? null, op.v, v.v);
  };

  const p = expr();
  const rest = peek();
  if (rest.t !== 'end') throw new FilterError(`unexpected "${rest.v}" ${where(rest)}`);
  return p;
}

/** Compiles the filter box's text for these columns; never throws (an invalid expression is its error). */
export function compileTableFilter(text: string, columns: readonly TableColumn[]): TableFilter {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, test: () => true };
  if (!EXPRESSION.test(trimmed)) return { ok: true, test: nameHas(trimmed) };
  try {
    return { ok: true, test: parse(tokenize(trimmed), columns) };
  } catch (err) {
    if (err instanceof FilterError) return { ok: false, error: err.message };
    return { ok: false, error: 'not a filter expression' };
  }
}
