// Wires the real readers and run discovery into a Workspace: the one place that knows every format.

import type { SourceFormatName } from '../../shared/formats';
import { discoverRuns } from '../discovery';
import { createReader } from '../readers';
import type { IncrementalReader } from '../readers/reader';
import { EventFileReader } from '../tfevents';
import type { SeriesSet } from '../series/series-set';
import type { ProgressInfo, ReadError } from '../readers/types';
import type { Discover, LiveSource } from './live-source';
import { Workspace } from './workspace';

/** An event file as a LiveSource: reads are synchronous and proportional to the bytes appended. */
function tfeventsSource(path: string): LiveSource {
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
    readMore: async () => {
      reader.readMore();
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
    readMore: async () => {
      await reader.readMore();
      const r = reader.result();
      records = r.records;
      errors = r.errors;
      progress = r.progress ?? null;
    },
    close: () => {},
  };
}

export function createSource(path: string, format: SourceFormatName): LiveSource {
  return format === 'tfevents' ? tfeventsSource(path) : readerSource(createReader(path, format));
}

export const discover: Discover = (root) => discoverRuns(root);

export function createWorkspace(opts: { usePolling?: boolean; watch?: boolean }): Workspace {
  return new Workspace({ discover, createSource, ...opts });
}
