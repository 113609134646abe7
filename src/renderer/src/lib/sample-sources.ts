// A run's sample sources asked of the backend now and every `everyMs`; a listing is passed on only when it changed.

import type { Result } from '../../../shared/result';
import type { SampleSourceInfo } from '../../../shared/samples';

/** What this asks of a Backend (typed here so the module is tested without one). */
export interface SampleSourcesBackend {
  invoke(channel: 'samples.list', args: { run: string }): Promise<Result<SampleSourceInfo[]>>;
}

export type SampleSourcesUpdate = { ok: true; sources: SampleSourceInfo[] } | { ok: false; message: string };

/** Follows `run`'s `samples.list` until the returned stop is called (answers after it are dropped). */
export function followSampleSources(
  backend: SampleSourcesBackend,
  run: string,
  everyMs: number,
  onchange: (u: SampleSourcesUpdate) => void,
): () => void {
  let stopped = false;
  let last = '';
  const ask = async (): Promise<void> => {
    const r = await backend.invoke('samples.list', { run });
    if (stopped) return;
    const key = r.ok ? listingKey(r.value) : `error\u0000${r.error.message}`;
    if (key === last) return;
    last = key;
    onchange(r.ok ? { ok: true, sources: r.value } : { ok: false, message: r.error.message });
  };
  void ask();
  const timer = setInterval(() => void ask(), everyMs);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/** What a change of the listing shows in: per source its counts and step span (not every step: a long run's listing
 * is large, and a step gaining samples changes its source's rows). */
function listingKey(sources: readonly SampleSourceInfo[]): string {
  return sources
    .map((s) => {
      const first = s.steps[0];
      const last = s.steps.at(-1);
      return [
        s.source,
        s.origin,
        s.rows,
        s.dropped,
        s.steps.length,
        first?.step,
        last?.step,
        last?.rows,
      ].join('\u0000');
    })
    .join('\u0001');
}
