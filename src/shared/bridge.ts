// The shape of window.rlwatch as the preload exposes it: the contract's request/response and push events.

import type { PushEvent, RequestChannel } from './channels';
import type { RendererPushPayloads, RequestArgs, RequestResults } from './contract';
import type { Result } from './result';

export interface RlwatchBridge {
  invoke<C extends RequestChannel>(channel: C, args: RequestArgs[C]): Promise<Result<RequestResults[C]>>;
  on<E extends PushEvent>(event: E, listener: (payload: RendererPushPayloads[E]) => void): () => void;
}
