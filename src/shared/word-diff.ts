// A word diff of two texts (the same prompt's completions at two steps): the longest common subsequence of their words, as kept, added and removed runs.

/** A run of the diff: text both hold, text only the new one holds, text only the old one held. */
export interface DiffPart {
  kind: 'same' | 'add' | 'del';
  text: string;
}

/** Words and the spaces after them: `a b\n` → `a `, `b\n`; a text's tokens joined are the text. */
export function diffTokens(text: string): string[] {
  return text.match(/\s+|[^\s]+\s*/g) ?? [];
}

/** Cells of the LCS table at most (words × words): past it the changed middle is one removal and one addition. */
export const DIFF_CELLS = 4_000_000;

/**
 * The word diff turning `before` into `after`: their common prefix and suffix kept, the middle by the longest common
 * subsequence of words (ties keep the removal first); a middle past DIFF_CELLS is one removal and one addition.
 * Runs of one kind are merged; joining the `same` and `add` parts gives `after`, the `same` and `del` parts `before`.
 */
export function wordDiff(before: string, after: string): DiffPart[] {
  const a = diffTokens(before);
  const b = diffTokens(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const parts: DiffPart[] = [];
  const push = (kind: DiffPart['kind'], text: string): void => {
    if (text === '') return;
    const last = parts[parts.length - 1];
    if (last && last.kind === kind) last.text += text;
    else parts.push({ kind, text });
  };
  push('same', a.slice(0, start).join(''));
  const n = endA - start;
  const m = endB - start;
  if (n * m > DIFF_CELLS) {
    push('del', a.slice(start, endA).join(''));
    push('add', b.slice(start, endB).join(''));
  } else {
    // lcs[i * (m + 1) + j]: the LCS length of a[start+i..endA) and b[start+j..endB).
    const w = m + 1;
    const lcs = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        lcs[i * w + j] =
          a[start + i] === b[start + j]
            ? lcs[(i + 1) * w + j + 1]! + 1
            : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (a[start + i] === b[start + j]) {
        push('same', a[start + i]!);
        i++;
        j++;
      } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) push('del', a[start + i++]!);
      else push('add', b[start + j++]!);
    }
    while (i < n) push('del', a[start + i++]!);
    while (j < m) push('add', b[start + j++]!);
  }
  push('same', a.slice(endA).join(''));
  return parts;
}
