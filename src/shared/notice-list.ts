// The page's notice banners: one per message (an O(1) check), at most MAX_NOTICES kept, the oldest dropped first.

import type { AppNotice } from './domain';

/** Banners kept at once: a remote flooding unique notices costs the page this many, not one per message. */
export const MAX_NOTICES = 20;

export interface Notice extends AppNotice {
  id: number;
}

export class NoticeList {
  /** By message, in the order they came (a Map keeps insertion order): the dedupe and the list in one. */
  private readonly byMessage = new Map<string, Notice>();
  private nextId = 1;
  /** Notices let go to keep the bound (the page says how many). */
  dropped = 0;

  constructor(private readonly cap = MAX_NOTICES) {}

  /** Adds `n` unless a notice with its message is kept; false when it was one. */
  add(n: AppNotice): boolean {
    if (this.byMessage.has(n.message)) return false;
    this.byMessage.set(n.message, { level: n.level, message: n.message, id: this.nextId++ });
    if (this.byMessage.size > this.cap) {
      const oldest = this.byMessage.keys().next().value as string;
      this.byMessage.delete(oldest);
      this.dropped++;
    }
    return true;
  }

  /** Removes the notice with this id (the user dismissed it); false when none is kept. */
  dismiss(id: number): boolean {
    for (const [message, n] of this.byMessage) if (n.id === id) return this.byMessage.delete(message);
    return false;
  }

  /** The kept notices, oldest first (a new array: the caller hands it to the view). */
  items(): Notice[] {
    return [...this.byMessage.values()];
  }
}
