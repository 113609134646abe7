// Turns core push events into what a renderer should receive: big deltas become a 'bulk' reset to re-query.

import { PUSH_EVENTS, type PushEvent } from '../../shared/channels';
import type { PushPayloads } from '../../shared/contract';
import type { SeriesDelta } from '../../shared/domain';
import type { AppBus } from './bus';

/** Above this many points a delta is not pushed: the renderer asks for a downsampled window instead. */
export const BULK_DELTA_POINTS = 5000;

export type RendererMessage = { [E in PushEvent]: { event: E; payload: PushPayloads[E] } }[PushEvent];

/** Pure: the message a renderer gets for one core event. */
export function toRendererMessage<E extends PushEvent>(
  event: E,
  payload: PushPayloads[E],
  bulkPoints = BULK_DELTA_POINTS,
): RendererMessage {
  if (event === 'series.appended') {
    const d = payload as SeriesDelta;
    if (d.steps.length > bulkPoints) {
      return { event: 'series.reset', payload: { run: d.run, tag: d.tag, reason: 'bulk' } };
    }
  }
  return { event, payload } as RendererMessage;
}

/** Subscribes `send` to every push event of the bus, through toRendererMessage; returns the unsubscribe. `follows`:
 * series.appended / series.reset of a series it says no to are not sent (a page shows a few of 2,500 live series:
 * encoding and sending every one was a third of serve's time, and the page's own time went on dropping them). */
export function forwardToRenderer(
  bus: AppBus,
  send: (message: RendererMessage) => void,
  bulkPoints = BULK_DELTA_POINTS,
  follows: (run: string, tag: string) => boolean = () => true,
): () => void {
  const offs = PUSH_EVENTS.map((event) =>
    bus.on(event, (payload) => {
      if (event === 'series.appended' || event === 'series.reset') {
        const s = payload as PushPayloads['series.reset'];
        if (!follows(s.run, s.tag)) return;
      }
      send(toRendererMessage(event, payload as never, bulkPoints));
    }),
  );
  return () => offs.forEach((off) => off());
}
