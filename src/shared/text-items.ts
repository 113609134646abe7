// Text samples a run's sources carry (TensorBoard `text` summaries): the items, per-tag counts and the read-only view of a store.

/** Items one texts.get answers at most (the newest ones): a page, not a dump of a long run. */
export const TEXT_PAGE_MAX = 1000;
/** Bytes one item keeps at most; the rest is cut (the item says `truncated`). */
export const TEXT_ITEM_BYTES = 1024 * 1024;
/** Cells one item keeps at most (a table of many tiny cells costs more than its bytes). */
export const TEXT_ITEM_CELLS = 65536;

/** One text value as its writer logged it: a string tensor's cells in row-major order with its shape. */
export interface TextItem {
  tag: string;
  step: number;
  /** Seconds since the epoch, as the event file stores it. */
  wallTime: number;
  /** The tensor's strings (a 0-d or 1-element tensor has one), decoded as UTF-8 with U+FFFD for bad bytes. */
  cells: string[];
  /** The tensor's shape ([] for a scalar string, [rows, columns] for a table). */
  shape: number[];
  /** Cells or bytes past the per-item cap were left out (the cells kept are the first ones, the last maybe cut). */
  truncated: boolean;
}

/** A tag's texts in a run: how many items, over which steps. */
export interface TextTagInfo {
  tag: string;
  count: number;
  firstStep: number;
  lastStep: number;
}

/** texts.get's answer: a tag's items (one step's, or the newest `limit`), and how many the run dropped. */
export interface TextPage {
  run: string;
  tag: string;
  items: TextItem[];
  /** Items of this run's sources left out because a source's text budget was spent. */
  dropped: number;
}

/** What a source's texts offer to readers of them (the workspace, inspect). */
export interface TextSource {
  /** Items kept. */
  readonly count: number;
  /** Items left out (the source's byte budget was spent). */
  readonly dropped: number;
  tags(): TextTagInfo[];
  /** The tag's items in file order, those at `step` only when given. */
  items(tag: string, step?: number): readonly TextItem[];
}
