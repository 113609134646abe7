// A remote run's texts, samples and histograms: the six channels asked of the endpoint that owns the run, answers checked and renamed.

import type { RequestArgs, RequestResults } from '../../shared/contract';
import {
  histogramTagListShape,
  histogramViewShape,
  samplePageShape,
  sampleSourceListShape,
  textPageShape,
  textTagListShape,
} from '../../shared/remote-shapes';
import { ApiError, type Result } from '../../shared/result';
import type { Shape } from './remote-endpoint';
import { remoteName } from './rename';

/** The channels of a run's items, which an endpoint answers for its own runs as we do for ours. */
export type ItemChannel =
  | 'texts.list'
  | 'texts.get'
  | 'samples.list'
  | 'samples.get'
  | 'histograms.list'
  | 'histograms.get';

/** What a proxied request needs of the endpoint: its id and a request that is checked and never waits on a mute one. */
export interface ItemAsker {
  readonly id: string;
  askLive<T>(channel: string, args: unknown, shape: Shape<T>): Promise<Result<T>>;
}

/** A channel's answer: the shape (and bounds) it must have, and it put under our run key. */
interface ItemAnswer<C extends ItemChannel> {
  shape: Shape<RequestResults[C]>;
  rename(v: RequestResults[C], key: string): RequestResults[C];
}

const ITEM_ANSWERS: { [C in ItemChannel]: ItemAnswer<C> } = {
  'texts.list': { shape: textTagListShape, rename: (v) => v },
  'texts.get': { shape: textPageShape, rename: (v, run) => ({ ...v, run }) },
  'samples.list': { shape: sampleSourceListShape, rename: (v) => v },
  'samples.get': { shape: samplePageShape, rename: (v, run) => ({ ...v, run }) },
  'histograms.list': { shape: histogramTagListShape, rename: (v) => v },
  'histograms.get': { shape: histogramViewShape, rename: (v, run) => ({ ...v, run }) },
};

/**
 * Asks `ep` for one of our run keys' items under its own run name, with the same arguments. A down endpoint, one
 * that is not answering or one whose older rlwatch has no such channel is `unavailable`, saying which; a malformed
 * or out-of-bounds answer is the endpoint's `internal` error (as for its series); its own errors come back as typed.
 */
export async function askItems<C extends ItemChannel>(
  ep: ItemAsker,
  channel: C,
  args: RequestArgs[C],
): Promise<RequestResults[C]> {
  const key = args.run;
  const name = remoteName(ep.id, key);
  if (name === null) throw new ApiError('not-found', `${key} is not from ${ep.id}`);
  const answer: ItemAnswer<C> = ITEM_ANSWERS[channel];
  const r = await ep.askLive(channel, { ...args, run: name }, answer.shape);
  if (r.ok) return answer.rename(r.value, key);
  if (r.error.code === 'unknown-channel')
    throw new ApiError('unavailable', `${ep.id} runs an older rlwatch that does not serve ${channel}`);
  throw new ApiError(r.error.code, r.error.message);
}
