// One source's text summaries, bounded: items per tag in file order, a byte budget past which new items are counted, not kept.

import {
  TEXT_ITEM_BYTES,
  TEXT_ITEM_CELLS,
  type TextItem,
  type TextSource,
  type TextTagInfo,
} from '../../shared/text-items';

/** Bytes of text (UTF-8, as written) one source keeps at most; items past it are dropped and counted. */
export const TEXT_SOURCE_BYTES = 16 * 1024 * 1024;

export interface TextLimits {
  sourceBytes: number;
  itemBytes: number;
  itemCells: number;
}

export const DEFAULT_TEXT_LIMITS: TextLimits = {
  sourceBytes: TEXT_SOURCE_BYTES,
  itemBytes: TEXT_ITEM_BYTES,
  itemCells: TEXT_ITEM_CELLS,
};

/** The plain-data form of a store (what a read worker posts back). */
export interface TextStoreSnapshot {
  items: TextItem[];
  bytes: number;
  dropped: number;
}

export class TextStore implements TextSource {
  /** Bytes of the items kept (their cells' UTF-8 bytes as written, cut to the item cap). */
  bytes = 0;
  dropped = 0;
  /** Bumped by every item kept: a cache of something derived from the items compares it. */
  version = 0;
  private readonly byTag = new Map<string, TextItem[]>();
  private kept = 0;

  constructor(readonly limits: TextLimits = DEFAULT_TEXT_LIMITS) {}

  get count(): number {
    return this.kept;
  }

  /** Keeps an item of `bytes` bytes if the budget allows; false (counted as dropped) when not. */
  add(item: TextItem, bytes: number): boolean {
    if (this.bytes + bytes > this.limits.sourceBytes) {
      this.dropped++;
      return false;
    }
    this.bytes += bytes;
    let list = this.byTag.get(item.tag);
    if (!list) this.byTag.set(item.tag, (list = []));
    list.push(item);
    this.kept++;
    this.version++;
    return true;
  }

  tags(): TextTagInfo[] {
    const out: TextTagInfo[] = [];
    for (const [tag, list] of this.byTag) {
      let firstStep = Infinity;
      let lastStep = -Infinity;
      for (const it of list) {
        if (it.step < firstStep) firstStep = it.step;
        if (it.step > lastStep) lastStep = it.step;
      }
      out.push({ tag, count: list.length, firstStep, lastStep });
    }
    return out.sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  }

  items(tag: string, step?: number): readonly TextItem[] {
    const list = this.byTag.get(tag) ?? [];
    return step === undefined ? list : list.filter((it) => it.step === step);
  }

  /** The newest item of a tag (the last written), or null. */
  last(tag: string): TextItem | null {
    const list = this.byTag.get(tag);
    return list && list.length > 0 ? list[list.length - 1]! : null;
  }

  snapshot(): TextStoreSnapshot {
    return { items: [...this.byTag.values()].flat(), bytes: this.bytes, dropped: this.dropped };
  }

  static fromSnapshot(s: TextStoreSnapshot, limits: TextLimits = DEFAULT_TEXT_LIMITS): TextStore {
    const store = new TextStore(limits);
    for (const it of s.items) {
      let list = store.byTag.get(it.tag);
      if (!list) store.byTag.set(it.tag, (list = []));
      list.push(it);
      store.kept++;
    }
    store.bytes = s.bytes;
    store.dropped = s.dropped;
    store.version = store.kept;
    return store;
  }
}
