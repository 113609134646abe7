// Names cut in the middle, never at the end: run names for the sidebar and figure legends (keeping the part that
// differs), chart titles.

const ELLIPSIS = '…';

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * For each name, the longest start and end it shares with any other (different) name. Sorted order puts a
 * name's longest shared start beside it (likewise its end, among the reversed names), so this costs
 * n log n rather than comparing every pair: a sidebar of thousands of runs stays responsive.
 */
function sharedEnds(names: readonly string[]): { prefix: number[]; suffix: number[] } {
  const longestShared = (keys: readonly string[]): number[] => {
    const order = keys
      .map((_, i) => i)
      .sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
    const out = new Array<number>(keys.length).fill(0);
    // Equal names sit together; each run of them takes its nearest different neighbours.
    for (let lo = 0; lo < order.length; ) {
      let hi = lo + 1;
      while (hi < order.length && keys[order[hi]!] === keys[order[lo]!]) hi++;
      const key = keys[order[lo]!]!;
      const before = lo > 0 ? commonPrefix(key, keys[order[lo - 1]!]!) : 0;
      const after = hi < order.length ? commonPrefix(key, keys[order[hi]!]!) : 0;
      for (let k = lo; k < hi; k++) out[order[k]!] = Math.max(before, after);
      lo = hi;
    }
    return out;
  };
  return {
    prefix: longestShared(names),
    suffix: longestShared(names.map((n) => n.split('').reverse().join(''))),
  };
}

/** What separates a name's segments: a path's `/`, and the `#` between a tracker database and its run (`DB#NAME`). */
const SEGMENT_END = /[/#]/;

/** The part of `name` no other name shares at its start or end, widened to whole segments (`SEGMENT_END`). */
function distinguishing(name: string, prefix: number, suffix: number): [number, number] {
  let start = Math.min(prefix, name.length);
  let end = Math.max(start, name.length - suffix);
  // A name that is another's prefix (or its start and end overlap) differs by its ending.
  if (end === start) [start, end] = [Math.max(0, start - 1), name.length];
  while (start > 0 && !SEGMENT_END.test(name[start - 1]!)) start--;
  while (end < name.length && !SEGMENT_END.test(name[end]!)) end++;
  return [start, end];
}

/** `text` cut to `max` characters with one ellipsis in its middle. */
function middleEllipsis(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 1) return ELLIPSIS.slice(0, max);
  const keep = max - 1;
  const head = Math.ceil(keep / 2);
  return text.slice(0, head) + ELLIPSIS + text.slice(text.length - (keep - head));
}

/** One name cut to `max` characters keeping [start, end): then its ending, then its beginning as room allows. */
function shortenOne(name: string, start: number, end: number, max: number): string {
  if (name.length <= max) return name;
  const cost = (h: number, a: number, b: number): number =>
    h + (h < a ? 1 : 0) + (b - a) + (b < name.length ? 1 : 0);
  if (cost(0, start, end) > max) {
    // The differing part alone is too long: keep a short first segment ("tfevents/") before it if it fits in a third.
    const firstSlash = name.indexOf('/') + 1;
    const head =
      firstSlash > 0 && firstSlash <= start && firstSlash + 1 <= max / 3 ? name.slice(0, firstSlash) : '';
    const lead = head + (start > head.length ? ELLIPSIS : '');
    const trail = end < name.length ? ELLIPSIS : '';
    return lead + middleEllipsis(name.slice(start, end), max - lead.length - trail.length) + trail;
  }
  const a = start;
  let b = end;
  let h = 0;
  while (b < name.length && cost(h, a, b + 1) <= max) b++;
  while (h < a && cost(h + 1, a, b) <= max) h++;
  if (h < a && h < 3) h = 0; // "t…" says nothing: an ellipsis alone is clearer.
  if (h >= a) return name.slice(0, b) + (b < name.length ? ELLIPSIS : '');
  return name.slice(0, h) + ELLIPSIS + name.slice(a, b) + (b < name.length ? ELLIPSIS : '');
}

/**
 * Pure: every name cut to at most `max` characters, keeping what tells it apart from the other names of
 * the list (the differing path segments), then its end, then its beginning. Names that fit are unchanged;
 * distinct names stay distinct whenever their differing part fits.
 */
export function shortenNames(names: readonly string[], max: number): string[] {
  return shortenWith(names, distinguishingSpans(names), max);
}

/** Every name's distinguishing part (it does not depend on the room: fitNames finds it once). */
function distinguishingSpans(names: readonly string[]): [number, number][] {
  const { prefix, suffix } = sharedEnds(names);
  return names.map((name, i) => distinguishing(name, prefix[i]!, suffix[i]!));
}

function shortenWith(names: readonly string[], spans: readonly [number, number][], max: number): string[] {
  const limit = Math.max(4, Math.floor(max));
  const out = names.map((name, i) => shortenOne(name, spans[i]![0], spans[i]![1], limit));
  // Still equal after cutting (a differing part wider than the room): fall back to the names' endings.
  const count = new Map<string, number>();
  for (const s of out) count.set(s, (count.get(s) ?? 0) + 1);
  return out.map((s, i) => {
    const name = names[i]!;
    if (count.get(s)! < 2 || s === name) return s;
    return ELLIPSIS + name.slice(name.length - (limit - 1));
  });
}

/**
 * Pure given `measure` (text → px): names shortened as little as possible so that every one is at most
 * `availablePx` wide (binary search over the character limit).
 */
export function fitNames(
  names: readonly string[],
  availablePx: number,
  measure: (text: string) => number,
): string[] {
  const fits = (list: string[]): boolean => list.every((s) => measure(s) <= availablePx);
  const longest = Math.max(0, ...names.map((n) => n.length));
  if (fits([...names])) return [...names];
  const spans = distinguishingSpans(names);
  let lo = 4;
  let hi = longest;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(shortenWith(names, spans, mid))) lo = mid;
    else hi = mid - 1;
  }
  return shortenWith(names, spans, lo);
}

/** A title's end that stays whole when it is cut: the metric's own name (its last path part), or this many characters. */
const TITLE_TAIL = 18;

/**
 * Pure: a chart title as [head, tail] for a middle ellipsis in CSS: the head shrinks with an ellipsis, the tail
 * (the last path part with its slash, or the last TITLE_TAIL characters of a longer one) always shows, so
 * `rewards/diversity_reward_fn/mean` and `…/std` never both read "rewards/diversity_rew…".
 */
export function titleParts(tag: string): [string, string] {
  const slash = tag.lastIndexOf('/');
  const cut = slash > 0 && tag.length - slash <= TITLE_TAIL ? slash : Math.max(0, tag.length - TITLE_TAIL);
  return [tag.slice(0, cut), tag.slice(cut)];
}

/** Most widths a NameFitter keeps for one font (a sidebar of 10k runs fits well within it). */
const MAX_WIDTHS = 50_000;

/**
 * The run list's fitNames, remembered: the last result while the names, room and font are the same (runs.changed
 * repeats them), and each name's width per font, so a new room or a longer list measures only names not measured yet.
 * Until the font is known (no row drawn yet to read it from) names stay whole and nothing is measured: 10k runs
 * were measured once in a guessed font, then again in the real one, a second or more of the page's first screen (#36).
 */
export class NameFitter {
  private widths = new Map<string, number>();
  private widthsFont: string | null = null;
  private last: { names: readonly string[]; px: number; font: string | null; fitted: string[] } | null = null;

  constructor(private readonly measure: (text: string, font: string) => number) {}

  fit(names: readonly string[], availablePx: number, font: string | null): string[] {
    const last = this.last;
    if (
      last &&
      last.px === availablePx &&
      last.font === font &&
      last.names.length === names.length &&
      last.names.every((n, i) => n === names[i])
    )
      return last.fitted;
    let fitted: string[];
    if (font === null) fitted = [...names];
    else {
      if (font !== this.widthsFont || this.widths.size > MAX_WIDTHS) {
        this.widths = new Map();
        this.widthsFont = font;
      }
      const widths = this.widths;
      fitted = fitNames(names, availablePx, (t) => {
        let w = widths.get(t);
        if (w === undefined) widths.set(t, (w = this.measure(t, font)));
        return w;
      });
    }
    this.last = { names: [...names], px: availablePx, font, fitted };
    return fitted;
  }
}
