// Wires the real readers and run discovery into a Workspace: the one place that knows every format.

import type { SourceFormatName } from '../../shared/formats';
import { discoverRuns } from '../discovery';
import { createReader } from '../readers';
import type { IncrementalReader } from '../readers/reader';
import { EventFileReader } from '../tfevents';
import type { SeriesSet } from '../series/series-set';
import type { ProgressInfo, ReadError } from '../readers/types';
import type { Discover, LiveSource, SourceOptions } from './live-source';
import { Workspace } from './workspace';

/** Bytes parsed per synchronous slice (one 1 MiB read chunk: ~2-4 ms at reader speed) before the reader pauses. */
export const TFEVENTS_SLICE_BYTES = 1 << 20;

const yieldToLoop = (): Promise<void> => new Promise((res) => setImmediate(res));

/** An event file as a LiveSource: file IO off the event loop, parsing proportional to the bytes appended
 * and cut into slices of TFEVENTS_SLICE_BYTES with a pause between them. */
function tfeventsSource(path: string, opts: SourceOptions): LiveSource {
  const pause = opts.pause ?? yieldToLoop;
  const maxBytes = opts.sliceBytes ?? TFEVENTS_SLICE_BYTES;
  const reader = new EventFileReader(path);
  let records = 0;
  let errors: ReadError[] = [];
  return {
    path,
    format: 'tfevents',
    get series(): SeriesSet {
      return reader.scalars;
    },
    get records() {
      return records;
    },
    get errors() {
      return errors;
    },
    progress: null,
    config: null,
    get bytesRead() {
      return reader.bytesRead;
    },
    readMore: async () => {
      while ((await reader.readMoreAsync({ maxBytes })).more) await pause();
      const r = reader.result(false);
      records = r.records;
      errors = r.errors;
    },
    close: () => {},
  };
}

/** Any other format's incremental reader as a LiveSource. */
function readerSource(reader: IncrementalReader): LiveSource {
  let progress: ProgressInfo | null = null;
  let config: Record<string, unknown> | null = null;
  let records = 0;
  let errors: ReadError[] = [];
  return {
    path: reader.path,
    format: reader.format,
    get series(): SeriesSet {
      return reader.series;
    },
    get records() {
      return records;
    },
    get errors() {
      return errors;
    },
    get progress() {
      return progress;
    },
    get config() {
      return config;
    },
    bytesRead: null,
    readMore: async () => {
      await reader.readMore();
      const r = reader.result();
      records = r.records;
      errors = r.errors;
      progress = r.progress ?? null;
      config = r.config ?? null;
    },
    close: () => {},
  };
}

export function createSource(path: string, format: SourceFormatName, opts: SourceOptions = {}): LiveSource {
  return format === 'tfevents' ? tfeventsSource(path, opts) : readerSource(createReader(path, format));
}

export const discover: Discover = (root) => discoverRuns(root);

export function createWorkspace(opts: {
  usePolling?: boolean;
  watch?: boolean;
  sweepMs?: number;
}): Workspace {
  return new Workspace({ discover, createSource, ...opts });
}
