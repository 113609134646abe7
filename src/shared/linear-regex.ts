// A regular-expression matcher whose time is linear in the text (a Pike VM over JavaScript's regex syntax, without
// back-references and lookaround): user patterns cannot backtrack exponentially however they are written.

/** Steps a compiled pattern may have (its repeats expanded): `(a{100}){100}` is refused, not built. */
export const MAX_PROGRAM = 2_000;

export class UnsupportedPattern extends Error {}

type CharTest = (c: number) => boolean;
type Assertion = 'start' | 'end' | 'word' | 'not-word';

type Node =
  | { k: 'char'; test: CharTest; negate: boolean; lit?: number }
  | { k: 'assert'; a: Assertion }
  | { k: 'cat'; items: Node[] }
  | { k: 'alt'; items: Node[] }
  | { k: 'rep'; body: Node; min: number; max: number };

const CHAR = 0;
const SPLIT = 1;
const JMP = 2;
const ASSERT = 3;
const MATCH = 4;
interface CharInstr {
  op: typeof CHAR;
  test: CharTest;
  negate: boolean;
  /** A literal character's case key (with the i flag a literal matches any character of the same key). */
  key: number | null;
}
interface SplitInstr {
  op: typeof SPLIT;
  x: number;
  y: number;
}
interface JmpInstr {
  op: typeof JMP;
  x: number;
}
type Instr = CharInstr | SplitInstr | JmpInstr | { op: typeof ASSERT; a: Assertion } | { op: typeof MATCH };

const isDigit: CharTest = (c) => c >= 48 && c <= 57;
const isWord: CharTest = (c) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
/** With the i and u flags \w also holds the long s and the Kelvin sign (they fold to s and k). */
const isWordFolded: CharTest = (c) => isWord(c) || c === 0x17f || c === 0x212a;
const isLineEnd: CharTest = (c) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
const isSpace: CharTest = (c) =>
  (c >= 9 && c <= 13) ||
  c === 32 ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;
const not =
  (t: CharTest): CharTest =>
  (c) =>
    !t(c);
const ANY: CharTest = () => true;

const single = (s: string): number | null => {
  const cp = s.codePointAt(0);
  return cp !== undefined && s.length === (cp > 0xffff ? 2 : 1) ? cp : null;
};
/** The i flag without u: the character's upper case, unless that is several characters or leaves non-ASCII for ASCII. */
function canonicalKey(c: number): number {
  const u = single(String.fromCodePoint(c).toUpperCase());
  return u === null || (c >= 128 && u < 128) ? c : u;
}
/** The i flag with u: a simple case folding (lower case of the upper case, where each is one character). */
function foldKey(c: number): number {
  const s = String.fromCodePoint(c);
  const u = single(s.toUpperCase());
  const l = u === null ? null : single(String.fromCodePoint(u).toLowerCase());
  return l ?? single(s.toLowerCase()) ?? c;
}
/** Characters that may share `c`'s case key (the caller keeps those that do). */
function caseAlike(c: number): number[] {
  const s = String.fromCodePoint(c);
  return [c, s.toLowerCase(), s.toUpperCase()].flatMap((x) => {
    const cp = typeof x === 'number' ? x : single(x);
    return cp === null ? [] : [cp];
  });
}

/** A class escape's test (`\d`, `\W`…), or null when `ch` is none. */
function classEscape(ch: string, isWord: CharTest): CharTest | null {
  switch (ch) {
    case 'd':
      return isDigit;
    case 'D':
      return not(isDigit);
    case 'w':
      return isWord;
    case 'W':
      return not(isWord);
    case 's':
      return isSpace;
    case 'S':
      return not(isSpace);
    default:
      return null;
  }
}

const CONTROL_ESCAPES: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13 };

class Parser {
  private i = 0;
  constructor(
    private readonly src: string,
    private readonly unicode: boolean,
    private readonly dotAll: boolean,
    private readonly isWord: CharTest,
  ) {}

  parse(): Node {
    const n = this.alternation();
    if (this.i < this.src.length) throw new UnsupportedPattern(`unexpected "${this.src[this.i]}"`);
    return n;
  }

  private peek(off = 0): string | undefined {
    return this.src[this.i + off];
  }

  private alternation(): Node {
    const items = [this.sequence()];
    while (this.peek() === '|') {
      this.i++;
      items.push(this.sequence());
    }
    return items.length === 1 ? items[0]! : { k: 'alt', items };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.i < this.src.length && this.peek() !== '|' && this.peek() !== ')') {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return items.length === 1 ? items[0]! : { k: 'cat', items };
  }

  /** `atom` with the quantifier after it, if any (a lazy `?` after it changes nothing for a yes/no match). */
  private quantified(atom: Node): Node {
    let min: number;
    let max: number;
    const c = this.peek();
    if (c === '*') [min, max] = [0, Infinity];
    else if (c === '+') [min, max] = [1, Infinity];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
      if (!m) return atom; // a literal "{" (the native parser already accepted the pattern)
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    if (this.peek() === '?') this.i++;
    return { k: 'rep', body: atom, min, max };
  }

  private atom(): Node {
    const c = this.src[this.i++]!;
    switch (c) {
      case '^':
        return { k: 'assert', a: 'start' };
      case '$':
        return { k: 'assert', a: 'end' };
      case '.':
        return { k: 'char', test: this.dotAll ? ANY : isLineEnd, negate: !this.dotAll };
      case '(':
        return this.group();
      case '[':
        return this.charClass();
      case '\\':
        return this.escapeAtom();
      default:
        return this.literal(this.i - 1);
    }
  }

  private literal(at: number): Node {
    const cp = this.unicode ? this.src.codePointAt(at)! : this.src.charCodeAt(at);
    this.i = at + (cp > 0xffff ? 2 : 1);
    return { k: 'char', test: (x) => x === cp, negate: false, lit: cp };
  }

  private group(): Node {
    if (this.peek() === '?') {
      const kind = this.src.slice(this.i, this.i + 3);
      if (kind.startsWith('?:')) this.i += 2;
      else if (kind.startsWith('?=') || kind.startsWith('?!') || kind === '?<=' || kind === '?<!')
        throw new UnsupportedPattern('lookahead and lookbehind (?=…) are not supported in filters');
      else if (kind.startsWith('?<')) this.i = this.src.indexOf('>', this.i) + 1;
      else throw new UnsupportedPattern(`unsupported group "(${kind}"`);
    }
    const inner = this.peek() === ')' ? ({ k: 'cat', items: [] } as Node) : this.alternation();
    if (this.src[this.i++] !== ')') throw new UnsupportedPattern('unclosed group');
    return inner;
  }

  private escapeAtom(): Node {
    const c = this.src[this.i]!;
    if (c === 'b' || c === 'B') {
      this.i++;
      return { k: 'assert', a: c === 'b' ? 'word' : 'not-word' };
    }
    if (/[1-9]/.test(c) || c === 'k')
      throw new UnsupportedPattern('back-references (\\1, \\k<name>) are not supported in filters');
    this.refuseProperty(c);
    const cls = classEscape(c, this.isWord);
    if (cls) {
      this.i++;
      return { k: 'char', test: cls, negate: false };
    }
    const cp = this.escapedChar();
    return { k: 'char', test: (x) => x === cp, negate: false, lit: cp };
  }

  /** The character an escape (after its `\`) stands for: \n, \x41, \u0041, \u{1F600}, \cJ, \0 or the character itself. */
  private escapedChar(): number {
    const c = this.src[this.i]!;
    const hex = (len: number): number | null => {
      const h = this.src.slice(this.i + 1, this.i + 1 + len);
      return h.length === len && /^[0-9a-fA-F]+$/.test(h) ? parseInt(h, 16) : null;
    };
    if (c in CONTROL_ESCAPES) {
      this.i++;
      return CONTROL_ESCAPES[c]!;
    }
    if (c === '0' && !/[0-9]/.test(this.peek(1) ?? '')) {
      this.i++;
      return 0;
    }
    if (c === 'c' && /[a-zA-Z]/.test(this.peek(1) ?? '')) {
      this.i += 2;
      return this.src.charCodeAt(this.i - 1) % 32;
    }
    if (c === 'x') {
      const v = hex(2);
      if (v !== null) {
        this.i += 3;
        return v;
      }
    }
    if (c === 'u') {
      if (this.unicode && this.peek(1) === '{') {
        const end = this.src.indexOf('}', this.i);
        const v = parseInt(this.src.slice(this.i + 2, end), 16);
        this.i = end + 1;
        return v;
      }
      const v = hex(4);
      if (v !== null) {
        this.i += 5;
        // A surrogate pair written as two \u escapes is one character in unicode mode.
        if (this.unicode && v >= 0xd800 && v <= 0xdbff && this.src.startsWith('\\u', this.i)) {
          const lo = parseInt(this.src.slice(this.i + 2, this.i + 6), 16);
          if (lo >= 0xdc00 && lo <= 0xdfff) {
            this.i += 6;
            return (v - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000;
          }
        }
        return v;
      }
    }
    if (/[0-9]/.test(c)) throw new UnsupportedPattern('octal escapes are not supported in filters');
    const cp = this.unicode ? this.src.codePointAt(this.i)! : this.src.charCodeAt(this.i);
    this.i += cp > 0xffff ? 2 : 1;
    return cp;
  }

  /** `\p{…}` (unicode mode) names a property this matcher does not know: refused, never read as "p{…}". */
  private refuseProperty(c: string): void {
    if (this.unicode && (c === 'p' || c === 'P'))
      throw new UnsupportedPattern('Unicode property escapes (\\p{…}) are not supported in filters');
  }

  private charClass(): Node {
    let negate = false;
    if (this.peek() === '^') {
      negate = true;
      this.i++;
    }
    const tests: CharTest[] = [];
    while (this.peek() !== ']') {
      if (this.i >= this.src.length) throw new UnsupportedPattern('unclosed character class');
      const a = this.classAtom();
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.i++;
        const b = this.classAtom();
        if (typeof a === 'number' && typeof b === 'number') {
          tests.push((x) => x >= a && x <= b);
          continue;
        }
        // `[\d-x]` (Annex B): the class, a "-" and the other end, each on its own.
        tests.push(typeof a === 'number' ? (x) => x === a : a, (x) => x === 45);
        tests.push(typeof b === 'number' ? (x) => x === b : b);
        continue;
      }
      tests.push(typeof a === 'number' ? (x) => x === a : a);
    }
    this.i++;
    return { k: 'char', test: (x) => tests.some((t) => t(x)), negate };
  }

  /** One member of a class: a character, or a class escape's test. */
  private classAtom(): number | CharTest {
    const c = this.src[this.i]!;
    if (c !== '\\') {
      const cp = this.unicode ? this.src.codePointAt(this.i)! : this.src.charCodeAt(this.i);
      this.i += cp > 0xffff ? 2 : 1;
      return cp;
    }
    this.i++;
    const e = this.src[this.i]!;
    const cls = classEscape(e, this.isWord);
    if (cls) {
      this.i++;
      return cls;
    }
    this.refuseProperty(e);
    if (e === 'b') {
      this.i++;
      return 8;
    }
    if (e === '-') {
      this.i++;
      return 45;
    }
    if (/[1-9]/.test(e)) throw new UnsupportedPattern('octal escapes are not supported in filters');
    return this.escapedChar();
  }
}

/** Instructions `node` compiles to (repeats expanded), to refuse a pattern too large before building it. */
function sizeOf(node: Node): number {
  switch (node.k) {
    case 'char':
    case 'assert':
      return 1;
    case 'cat':
      return node.items.reduce((s, n) => s + sizeOf(n), 0);
    case 'alt':
      return node.items.reduce((s, n) => s + sizeOf(n) + 2, 0);
    case 'rep': {
      const body = sizeOf(node.body);
      const copies = node.max === Infinity ? node.min + 1 : node.max;
      return copies * (body + 2) + 2;
    }
  }
}

function emit(node: Node, prog: Instr[], key: ((c: number) => number) | null): void {
  switch (node.k) {
    case 'char':
      prog.push({
        op: CHAR,
        test: node.test,
        negate: node.negate,
        key: key !== null && node.lit !== undefined ? key(node.lit) : null,
      });
      return;
    case 'assert':
      prog.push({ op: ASSERT, a: node.a });
      return;
    case 'cat':
      for (const n of node.items) emit(n, prog, key);
      return;
    case 'alt': {
      const jumps: JmpInstr[] = [];
      for (const [k, n] of node.items.entries()) {
        if (k === node.items.length - 1) {
          emit(n, prog, key);
          break;
        }
        const split: SplitInstr = { op: SPLIT, x: prog.length + 1, y: 0 };
        prog.push(split);
        emit(n, prog, key);
        const jump: JmpInstr = { op: JMP, x: 0 };
        prog.push(jump);
        jumps.push(jump);
        split.y = prog.length;
      }
      for (const j of jumps) j.x = prog.length;
      return;
    }
    case 'rep': {
      for (let k = 0; k < node.min; k++) emit(node.body, prog, key);
      if (node.max === Infinity) {
        const loop = prog.length;
        const s: SplitInstr = { op: SPLIT, x: loop + 1, y: 0 };
        prog.push(s);
        emit(node.body, prog, key);
        prog.push({ op: JMP, x: loop });
        s.y = prog.length;
        return;
      }
      const splits: SplitInstr[] = [];
      for (let k = node.min; k < node.max; k++) {
        const s: SplitInstr = { op: SPLIT, x: prog.length + 1, y: 0 };
        prog.push(s);
        splits.push(s);
        emit(node.body, prog, key);
      }
      for (const s of splits) s.y = prog.length;
      return;
    }
  }
}

export interface LinearRegex {
  readonly source: string;
  readonly flags: string;
  /** Whether the pattern matches somewhere in `text`; time O(text length × pattern size). */
  test(text: string): boolean;
}

/**
 * `source` with `flags` (i, m, s, u; g, y and d change nothing for test()) as a linear-time matcher. Throws
 * UnsupportedPattern for what it cannot match in linear time (back-references, lookaround) or a pattern whose repeats
 * expand past MAX_PROGRAM; the caller checks the syntax with the native RegExp first.
 */
export function compileLinearRegex(source: string, flags: string): LinearRegex {
  if (/[^gimsuyd]/.test(flags))
    throw new UnsupportedPattern(`flag "${flags.replace(/[gimsuyd]/g, '')}" is not supported`);
  const icase = flags.includes('i');
  const multiline = flags.includes('m');
  const unicode = flags.includes('u');
  const word = icase && unicode ? isWordFolded : isWord;
  const tree = new Parser(source, unicode, flags.includes('s'), word).parse();
  if (sizeOf(tree) > MAX_PROGRAM)
    throw new UnsupportedPattern(`its repeats expand to over ${MAX_PROGRAM} steps`);
  const key = icase ? (unicode ? foldKey : canonicalKey) : null;
  const prog: Instr[] = [];
  emit(tree, prog, key);
  prog.push({ op: MATCH });

  return {
    source,
    flags,
    test(text: string): boolean {
      const n = prog.length;
      /** The position + 1 a step's list last held each instruction at: each instruction once per position. */
      const seen = new Int32Array(n);
      let cur: number[] = [];
      let next: number[] = [];
      const stack: number[] = [];
      const len = text.length;
      const at = (pos: number): number =>
        pos >= len ? -1 : unicode ? text.codePointAt(pos)! : text.charCodeAt(pos);
      const before = (pos: number): number => {
        if (pos === 0) return -1;
        const c = text.charCodeAt(pos - 1);
        return unicode && c >= 0xdc00 && c <= 0xdfff && pos >= 2 ? text.codePointAt(pos - 2)! : c;
      };
      const holds = (a: Assertion, pos: number): boolean => {
        if (a === 'start') return pos === 0 || (multiline && isLineEnd(before(pos)));
        if (a === 'end') return pos === len || (multiline && isLineEnd(at(pos)));
        const b = before(pos);
        const c = at(pos);
        const boundary = (b >= 0 && word(b)) !== (c >= 0 && word(c));
        return a === 'word' ? boundary : !boundary;
      };
      /** Adds `pc` and everything it reaches without a character to `list`; true when that reaches MATCH. */
      const add = (list: number[], pc0: number, pos: number): boolean => {
        stack.push(pc0);
        while (stack.length > 0) {
          const pc = stack.pop()!;
          if (seen[pc] === pos + 1) continue;
          seen[pc] = pos + 1;
          const ins = prog[pc]!;
          switch (ins.op) {
            case MATCH:
              stack.length = 0;
              return true;
            case JMP:
              stack.push(ins.x);
              break;
            case SPLIT:
              stack.push(ins.y, ins.x);
              break;
            case ASSERT:
              if (holds(ins.a, pos)) stack.push(pc + 1);
              break;
            default:
              list.push(pc);
          }
        }
        return false;
      };
      if (add(cur, 0, 0)) return true;
      for (let pos = 0; pos < len; ) {
        const c = at(pos);
        const width = c > 0xffff ? 2 : 1;
        // With the i flag: the character's case key, and the characters of that key a class may list.
        const k = key === null ? c : key(c);
        const alike = key === null ? [] : caseAlike(c).filter((x) => key(x) === k);
        const nextPos = pos + width;
        next.length = 0;
        for (const pc of cur) {
          const ins = prog[pc] as CharInstr;
          const hit = ins.key !== null ? ins.key === k : ins.test(c) || alike.some((x) => ins.test(x));
          if (hit !== ins.negate && add(next, pc + 1, nextPos)) return true;
        }
        // Unanchored: a match may also start here.
        if (add(next, 0, nextPos)) return true;
        [cur, next] = [next, cur];
        pos = nextPos;
      }
      return false;
    },
  };
}
