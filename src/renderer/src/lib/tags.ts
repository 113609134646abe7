// Which tags become charts and in which group: every series is a chart, in catalog groups split by tag namespace.

import { GROUPS, groupOf, type MetricGroup } from '../../../shared/catalog';
import type { UserPattern } from '../../../shared/user-regex';
import { userRegexNow } from './user-regex-loader';

/** The charts of one namespace (`train/`, `rollout/`, `system/cpu`…) inside a catalog group. */
export interface TagSection {
  /** '' for tags without a namespace. */
  namespace: string;
  /** Unique in the grid: the catalog group and the namespace. */
  key: string;
  tags: string[];
}

export interface TagGroup {
  group: MetricGroup;
  /** Every tag of the group, in the order the sections show them. */
  tags: string[];
  sections: TagSection[];
}

/** Sections with more charts than this start collapsed (one chart per CPU core is not a first screen). */
export const COLLAPSE_ABOVE = 12;

/**
 * Pure: a tag's namespace: its first path segment (`train/`, `rollout/`, `actor/`), and for system
 * metrics the device family too (W&B's `system/cpu.3.cpu_percent` → `system/cpu`, `system/gpu.0.temp` →
 * `system/gpu`), so per-core and per-GPU stats come as their own sections. '' for a tag without '/'.
 */
export function namespaceOf(tag: string): string {
  const slash = tag.indexOf('/');
  if (slash <= 0) return '';
  const head = tag.slice(0, slash);
  if (head.toLowerCase() !== 'system') return `${head}/`;
  // W&B names device stats family.index.field (cpu.3.cpu_percent, gpu.0.temp, network.recv).
  const family = /^([A-Za-z_]+)\./.exec(tag.slice(slash + 1))?.[1];
  return family ? `${head}/${family}` : `${head}/`;
}

/**
 * Pure: whether a section shows its charts: the user's choice if made, else open unless it is large and
 * other charts are there to show instead (a run whose every chart is in one section still shows them).
 */
export function sectionOpen(
  key: string,
  size: number,
  gridTotal: number,
  choice: { collapsed: ReadonlySet<string>; expanded: ReadonlySet<string> },
): boolean {
  if (choice.expanded.has(key)) return true;
  if (choice.collapsed.has(key)) return false;
  return size <= COLLAPSE_ABOVE || size >= gridTotal;
}

function sectionsOf(
  group: MetricGroup,
  tags: string[],
  compare: (a: string, b: string) => number,
): TagSection[] {
  const byNamespace = new Map<string, string[]>();
  for (const tag of tags) {
    const ns = namespaceOf(tag);
    let list = byNamespace.get(ns);
    if (!list) byNamespace.set(ns, (list = []));
    list.push(tag);
  }
  // Tags without a namespace first, then namespaces in name order.
  return [...byNamespace.keys()]
    .sort((a, b) => (a === '' ? -1 : b === '' ? 1 : compare(a, b)))
    .map((namespace) => ({
      namespace,
      key: namespace ? `${group}:${namespace}` : group,
      tags: byNamespace.get(namespace)!.sort(compare),
    }));
}

/**
 * The regex of the tag filter, or the reason it is not one. Empty text matches everything; so does any text while the
 * regex engine is still loading (`pending`: the caller asks again once `loadUserRegex` resolves).
 */
export function compileFilter(text: string): {
  re: UserPattern | null;
  error: string | null;
  pending?: true;
} {
  if (!text.trim()) return { re: null, error: null };
  const compile = userRegexNow();
  return compile ? compile(text, 'i') : { re: null, error: null, pending: true };
}

/**
 * Chart tags grouped in the seeds' order. Every series the run has is a chart (the set `inspect`, `watch`
 * and export list: progress counters too, in the Progress group); tags not matching the filter are dropped,
 * pinned tags go into their own first group.
 */
export function groupTags(
  tags: Iterable<string>,
  opts: { filter: UserPattern | null; pinned: ReadonlySet<string> },
): { pinned: string[]; groups: TagGroup[] } {
  const byGroup = new Map<MetricGroup, string[]>();
  const pinned: string[] = [];
  for (const tag of new Set(tags)) {
    if (opts.filter && !opts.filter.test(tag)) continue;
    if (opts.pinned.has(tag)) {
      pinned.push(tag);
      continue;
    }
    const g = groupOf(tag);
    let list = byGroup.get(g);
    if (!list) byGroup.set(g, (list = []));
    list.push(tag);
  }
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
  pinned.sort(collator.compare);
  const groups: TagGroup[] = [];
  for (const group of GROUPS) {
    const list = byGroup.get(group);
    if (!list) continue;
    const sections = sectionsOf(group, list, collator.compare);
    groups.push({ group, tags: sections.flatMap((x) => x.tags), sections });
  }
  return { pinned, groups };
}
