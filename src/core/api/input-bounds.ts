// Bounds an untrusted request's shape (nesting depth, node count) before any recursive validation runs.

export interface InputBounds {
  /** Deepest array/object nesting accepted; the contract's deepest schema needs far less. */
  maxDepth: number;
  /** Most values (arrays, objects, primitives) in one request. */
  maxNodes: number;
}

export const DEFAULT_INPUT_BOUNDS: InputBounds = { maxDepth: 64, maxNodes: 200_000 };

/**
 * Walks `value` iteratively (never on the call stack) and says why it is out of bounds, or null.
 * Objects reachable twice (possible over IPC's structured clone, never from JSON) count each time,
 * so a cycle is refused by the node budget instead of looping.
 */
export function outOfBounds(value: unknown, bounds: InputBounds = DEFAULT_INPUT_BOUNDS): string | null {
  const stack: Array<{ v: unknown; depth: number }> = [{ v: value, depth: 0 }];
  let nodes = 0;
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (++nodes > bounds.maxNodes) return `more than ${bounds.maxNodes} values`;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= bounds.maxDepth) return `nested deeper than ${bounds.maxDepth} levels`;
    const children: unknown[] = Array.isArray(v) ? v : ArrayBuffer.isView(v) ? [] : Object.values(v);
    if (nodes + stack.length + children.length > bounds.maxNodes)
      return `more than ${bounds.maxNodes} values`;
    for (const child of children) stack.push({ v: child, depth: depth + 1 });
  }
  return null;
}
