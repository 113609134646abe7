// The one typed contract: argument and result schemas per request channel, payload types per push event.

import { z } from 'zod';
import type { PushEvent, RequestChannel } from './channels';
import type { AppInfo, AppNotice, RunInfo, ScalarColumns, SeriesDelta } from './domain';

const runName = z.string().min(1).max(4096);
const tagName = z.string().min(1).max(4096);

/** Argument schemas: every request's input is untrusted and parsed here before a handler sees it. */
export const requestSchemas = {
  'app.info': z.strictObject({}),
  'runs.list': z.strictObject({}),
  'runs.openFolder': z.strictObject({ path: z.string().min(1).max(4096) }),
  'runs.chooseFolder': z.strictObject({}),
  'series.get': z.strictObject({ run: runName, tag: tagName }),
} satisfies Record<RequestChannel, z.ZodType>;

/** Result types per channel (results are produced by our own code, so types suffice). */
export interface RequestResults {
  'app.info': AppInfo;
  'runs.list': RunInfo[];
  'runs.openFolder': { root: string };
  'runs.chooseFolder': { root: string } | null;
  'series.get': ScalarColumns;
}

export type RequestArgs = { [C in RequestChannel]: z.infer<(typeof requestSchemas)[C]> };

export interface PushPayloads {
  'runs.changed': RunInfo[];
  'series.appended': SeriesDelta;
  'app.notice': AppNotice;
}

// Compile-time check that every push event has a payload type and every channel a result type.
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const contractIsComplete: [
  Exact<keyof PushPayloads, PushEvent>,
  Exact<keyof RequestResults, RequestChannel>,
] = [true, true];
