// The one typed event bus of the app core: every contract push event, emitted once, listened to by both transports.

import type { PushEvent } from '../../shared/channels';
import type { PushPayloads } from '../../shared/contract';

export type BusListener<E extends PushEvent> = (payload: PushPayloads[E]) => void;

/** Minimal typed emitter: a throwing listener (a closed window) never stops delivery to the others. */
export class AppBus {
  private readonly listeners = new Map<PushEvent, Set<(payload: never) => void>>();

  on<E extends PushEvent>(event: E, listener: BusListener<E>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as (payload: never) => void);
    return () => void set.delete(listener as (payload: never) => void);
  }

  emit<E extends PushEvent>(event: E, payload: PushPayloads[E]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const l of [...set]) {
      try {
        (l as BusListener<E>)(payload);
      } catch {
        // One failing subscriber must not starve the others (or the emitter).
      }
    }
  }

  listenerCount(event: PushEvent): number {
    return this.listeners.get(event)?.size ?? 0;
  }
}
