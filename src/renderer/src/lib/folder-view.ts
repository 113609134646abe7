// What the dashboard keeps per opened folder (composed charts, whether a sweep opens overlaid) as pure data: the stored
// JSON parsed totally (anything malformed dropped, never thrown), edits, checks. Stored by folder-prefs.svelte.ts.

import { MAX_COMPOSED_TAGS } from '../../../shared/charts/composed';

export { MAX_COMPOSED_TAGS };

/** A chart the user composed of several tags, each drawn for every charted run. */
export interface ComposedChart {
  /** Unique within the folder; what the chart is titled. */
  name: string;
  tags: string[];
}

export interface FolderView {
  composed: ComposedChart[];
  /** Overlay every run of a sweep when the folder opens (the default); false once the user turned it off. */
  sweepOverlay: boolean;
}

export const EMPTY_FOLDER_VIEW: FolderView = { composed: [], sweepOverlay: true };

/** Bounds on what is kept: a stored value past them is cut (a hand-edited or hostile entry stays small). */
export const MAX_COMPOSED = 50;
const MAX_NAME = 200;
const MAX_TAG = 1000;

const KEY_PREFIX = 'rlwatch.folder:';

/** The localStorage key of a folder's view: its path as the backend reports it (the opened folder or serve root). */
export const folderKey = (root: string): string => `${KEY_PREFIX}${root}`;

const isText = (v: unknown, max: number): v is string =>
  typeof v === 'string' && v.length > 0 && v.length <= max;

/** Pure: a stored folder view (the raw localStorage text, or null) → a valid FolderView; bad parts are dropped. */
export function parseFolderView(raw: string | null): FolderView {
  if (raw === null) return { ...EMPTY_FOLDER_VIEW, composed: [] };
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return { ...EMPTY_FOLDER_VIEW, composed: [] };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { ...EMPTY_FOLDER_VIEW, composed: [] };
  const o = v as Record<string, unknown>;
  const composed: ComposedChart[] = [];
  const names = new Set<string>();
  for (const c of Array.isArray(o.composed) ? o.composed : []) {
    if (composed.length >= MAX_COMPOSED) break;
    if (typeof c !== 'object' || c === null) continue;
    const { name, tags } = c as Record<string, unknown>;
    if (!isText(name, MAX_NAME) || names.has(name) || !Array.isArray(tags)) continue;
    const good = [...new Set(tags.filter((t): t is string => isText(t, MAX_TAG)))].slice(
      0,
      MAX_COMPOSED_TAGS,
    );
    if (good.length === 0) continue;
    names.add(name);
    composed.push({ name, tags: good });
  }
  return { composed, sweepOverlay: typeof o.sweepOverlay === 'boolean' ? o.sweepOverlay : true };
}

/** Pure: `list` with `chart` put in place of the one named `replacing` (or of its own name), else appended. */
export function upsertComposed(
  list: readonly ComposedChart[],
  chart: ComposedChart,
  replacing: string | null = null,
): ComposedChart[] {
  const at = list.findIndex((c) => c.name === (replacing ?? chart.name));
  return at < 0 ? [...list, chart] : list.map((c, i) => (i === at ? chart : c));
}

/** Why a composed chart cannot be saved as it is (shown in the dialog), or null. */
export function composeProblem(
  list: readonly ComposedChart[],
  name: string,
  tags: readonly string[],
  replacing: string | null,
): string | null {
  if (name.trim() === '') return 'Name the chart.';
  if (name.length > MAX_NAME) return `A name has at most ${MAX_NAME} characters.`;
  if (tags.length === 0) return 'Pick at least one tag.';
  if (tags.length > MAX_COMPOSED_TAGS) return `A chart holds at most ${MAX_COMPOSED_TAGS} tags.`;
  if (name !== replacing && list.some((c) => c.name === name)) return `A chart named “${name}” exists.`;
  if (replacing === null && list.length >= MAX_COMPOSED) return `At most ${MAX_COMPOSED} composed charts.`;
  return null;
}
