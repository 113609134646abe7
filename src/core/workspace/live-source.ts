// The interface the workspace needs from any reader of one file that may still be growing.

import type { SourceFormatName } from '../../shared/formats';
import type { SeriesSet } from '../series/series-set';
import type { ProgressInfo, ReadError } from '../readers/types';

export interface LiveSource {
  /** Absolute path of the file. */
  readonly path: string;
  readonly format: SourceFormatName;
  /** All points read so far, appended in place. A reset (file truncated) may shorten series. */
  readonly series: SeriesSet;
  /** Records read so far. */
  readonly records: number;
  /** Errors met so far (a live file's partial tail is not one). */
  readonly errors: readonly ReadError[];
  readonly progress: ProgressInfo | null;
  /** Reads whatever was appended since the last call. Never throws: failures become `errors`. */
  readMore(): Promise<void>;
  close(): void;
}

export interface DiscoveredRun {
  run: string;
  dir: string;
  sources: { path: string; format: SourceFormatName }[];
}

export interface Discovery {
  runs: DiscoveredRun[];
  errors: { path: string; message: string }[];
}

export type SourceFactory = (path: string, format: SourceFormatName) => LiveSource;
export type Discover = (root: string) => Promise<Discovery>;
