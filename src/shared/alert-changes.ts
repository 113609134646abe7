// Alert changes pushed since the page last drew, merged into its alert list in one pass (O(list + changes)).

import type { AlertInfo } from './domain';

/** Alerts a page keeps: past this the oldest are let go (each endpoint already keeps at most 10,000). */
export const MAX_PAGE_ALERTS = 50_000;

export class PendingAlerts {
  /** The newest state of each changed alert, by id (a burst of changes to one alert is one entry). */
  private readonly byId = new Map<string, AlertInfo>();

  get size(): number {
    return this.byId.size;
  }

  add(a: AlertInfo): void {
    this.byId.delete(a.id);
    this.byId.set(a.id, a);
  }

  clear(): void {
    this.byId.clear();
  }

  /** `list` with the pending changes applied (replaced in place, new ones appended), then none pending. */
  applyTo(list: readonly AlertInfo[], cap = MAX_PAGE_ALERTS): AlertInfo[] {
    const out = list.map((a) => {
      const changed = this.byId.get(a.id);
      if (changed === undefined) return a;
      this.byId.delete(a.id);
      return changed;
    });
    for (const a of this.byId.values()) out.push(a);
    this.byId.clear();
    return out.length > cap ? out.slice(out.length - cap) : out;
  }
}
