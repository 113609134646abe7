// What a run's sources hold, read for the API: table facts (kept until a source grows), texts, samples, histograms, progress, windows.

import type { SeriesWindow } from '../../shared/domain';
import type { HistogramSource } from '../../shared/histogram-items';
import type { SampleSource } from '../../shared/samples';
import type { TextSource } from '../../shared/text-items';
import type { ProgressInfo } from '../readers/types';
import { textSamples } from '../samples/text-samples';
import type { WindowQuery } from '../series/live-view';
import { factSource, runFacts, type FactSource, type RunFacts } from '../series/run-facts';
import type { SeriesSet } from '../series/series-set';
import { sourceProgress, type RunState } from './run-state';

/** Each run's table facts, kept with the live sources' series sets and sizes they were counted from. */
export class RunFactsCache {
  private readonly kept = new WeakMap<
    RunState,
    { sets: readonly SeriesSet[]; counts: readonly number[]; facts: RunFacts }
  >();

  /** The run's points and sessions over the files that exist now (a deleted file's data, still charted, is not
   * counted): what `inspect --table` reads of the same folder. Kept per run until one of its live sources changes
   * or grows: a table asked again for 1000 runs that did not move walks no series. */
  of(state: RunState): RunFacts {
    const live = state.entries.filter((e) => e.state === 'live');
    const sets = live.map((e) => e.set);
    const counts = sets.map((set) => set.pointCount());
    const kept = this.kept.get(state);
    if (
      kept &&
      kept.sets.length === sets.length &&
      kept.sets.every((set, i) => set === sets[i] && kept.counts[i] === counts[i])
    )
      return kept.facts;
    const tags = new Map<string, FactSource[]>();
    for (const e of live)
      for (const [tag, series] of e.set.entries()) {
        let list = tags.get(tag);
        if (!list) tags.set(tag, (list = []));
        list.push(factSource(e.name, e.format, series));
      }
    const facts = runFacts(tags);
    this.kept.set(state, { sets, counts, facts });
    return facts;
  }
}

/** The text samples of a run's live sources (TensorBoard `text` summaries), in file order; [] for no run. */
export function runTexts(state: RunState | undefined): TextSource[] {
  const out: TextSource[] = [];
  for (const e of state?.entries ?? []) if (e.state === 'live' && e.live.texts) out.push(e.live.texts);
  return out;
}

/** The sample tables of a run's live sources (completions JSONL, W&B tables, TensorBoard text as samples); [] for no run. */
export function runSamples(state: RunState | undefined): SampleSource[] {
  const out: SampleSource[] = [];
  for (const e of state?.entries ?? []) {
    if (e.state !== 'live') continue;
    if (e.live.samples) out.push(e.live.samples);
    if (e.live.texts && e.live.texts.count > 0) out.push(textSamples(e.live.texts));
  }
  return out;
}

/** The histograms of a run's live sources (TensorBoard, W&B), in file order; [] for no run. */
export function runHistograms(state: RunState | undefined): HistogramSource[] {
  const out: HistogramSource[] = [];
  for (const e of state?.entries ?? [])
    if (e.state === 'live' && e.live.histogramSteps) out.push(e.live.histogramSteps);
  return out;
}

/** The newest progress a run's sources report (training_progress.json, trainer_state.json), with raw fields. */
export function runProgress(state: RunState | undefined): ProgressInfo | null {
  let found: ProgressInfo | null = null;
  for (const e of state?.entries ?? []) found = sourceProgress(e) ?? found;
  return found;
}

/** The live view of `tag` in a run over an x-range, downsampled for `pixels` (or one session's own points with
 * `session`); null for no run or an unknown tag/session. */
export function runWindow(
  state: RunState | undefined,
  tag: string,
  q: WindowQuery & { session?: number },
): SeriesWindow | null {
  const view = state?.views.get(tag);
  if (!state || !view) return null;
  const run = state.run;
  if (q.session === undefined) return { run, tag, ...view.window(q) };
  const w = view.sessionWindow(q.session, q);
  return w ? { run, tag, ...w } : null;
}

/** Points stored in memory (every source series, dropped restart points included) and the bytes their columns
 * hold (capacity, not just length): for memory checks. */
export function storedStats(runs: Iterable<RunState>): { points: number; bytes: number; dropped: number } {
  let points = 0;
  let bytes = 0;
  let dropped = 0;
  for (const run of runs)
    for (const e of run.entries)
      for (const [, s] of e.set.entries()) {
        points += s.length;
        bytes += s.byteSize;
        dropped += s.dropped;
      }
  return { points, bytes, dropped };
}
