// Validates and routes one contract request to its handler; shared by Electron IPC and the serve WebSocket.

import { isRequestChannel } from '../../shared/channels';
import { requestSchemas, type Handlers } from '../../shared/contract';
import { ApiError, fail, ok, type Result } from '../../shared/result';
import { outOfBounds } from './input-bounds';

export async function dispatch(
  handlers: Handlers,
  channel: unknown,
  rawArgs: unknown,
): Promise<Result<unknown>> {
  if (!isRequestChannel(channel)) {
    // Only a string is quoted back: String() of an object can itself throw (a `toString` that is not a function).
    const named =
      typeof channel === 'string' ? JSON.stringify(channel).slice(0, 80) : `of type ${typeof channel}`;
    return fail('unknown-channel', `unknown channel ${named}`);
  }
  // Shape first, iteratively: the recursive schema would overflow the stack on deep nesting.
  const tooBig = outOfBounds(rawArgs);
  if (tooBig !== null) return fail('bad-request', `${channel}: arguments refused: ${tooBig}`);
  let parsed: ReturnType<(typeof requestSchemas)[typeof channel]['safeParse']>;
  try {
    parsed = requestSchemas[channel].safeParse(rawArgs ?? {});
  } catch (err) {
    // A validator that throws is still a refusal of this request, never a crash of the caller.
    return fail(
      'bad-request',
      `${channel}: arguments refused: ${err instanceof Error ? err.name : 'invalid'}`,
    );
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    return fail('bad-request', `${channel}: invalid arguments${where}: ${issue?.message ?? 'rejected'}`);
  }
  try {
    const handler = handlers[channel] as (args: unknown) => unknown;
    return ok(await handler(parsed.data));
  } catch (err) {
    if (err instanceof ApiError) return fail(err.code, err.message);
    return fail('internal', `${channel} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
