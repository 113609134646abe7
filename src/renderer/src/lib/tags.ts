// Which tags become charts and in which group: catalog groups in seed order, progress fields left out.

import { GROUPS, groupOf, type MetricGroup } from '../../../shared/catalog';

/** Progress fields a training_progress.json commonly has, used until the run's details name its own. */
export const KNOWN_PROGRESS_FIELDS = [
  'completed_chunks',
  'total_chunks',
  'requests_done',
  'total_requests',
  'global_step',
  'current_step',
  'max_steps',
  'total_steps',
  'num_train_epochs',
];

export interface TagGroup {
  group: MetricGroup;
  tags: string[];
}

/** The regex of the tag filter, or the reason it is not one. Empty text matches everything. */
export function compileFilter(text: string): { re: RegExp | null; error: string | null } {
  if (!text.trim()) return { re: null, error: null };
  try {
    return { re: new RegExp(text, 'i'), error: null };
  } catch (err) {
    return { re: null, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Chart tags grouped in the seeds' order: progress fields are not charts (the sidebar shows them),
 * tags not matching the filter are dropped, pinned tags go into their own first group.
 */
export function groupTags(
  tags: Iterable<string>,
  opts: { progressFields: ReadonlySet<string>; filter: RegExp | null; pinned: ReadonlySet<string> },
): { pinned: string[]; groups: TagGroup[] } {
  const byGroup = new Map<MetricGroup, string[]>();
  const pinned: string[] = [];
  for (const tag of new Set(tags)) {
    if (opts.progressFields.has(tag)) continue;
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
    if (list) groups.push({ group, tags: list.sort(collator.compare) });
  }
  return { pinned, groups };
}
