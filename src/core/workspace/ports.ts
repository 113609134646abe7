// What a Workspace is given from outside: a folder walk (discovery) and a factory of live sources.

import type { SourceFormatName } from '../../shared/formats';
import type { LiveSource, SourceOptions } from '../sources/live-source';

export interface DiscoveredRun {
  run: string;
  dir: string;
  sources: { path: string; format: SourceFormatName }[];
}

export interface Discovery {
  runs: DiscoveredRun[];
  /** Per-folder problems (unreadable, symlink loop, limits): reported, the walk goes on. */
  errors: { path: string; message: string; kind?: string }[];
}

export type SourceFactory = (path: string, format: SourceFormatName, opts?: SourceOptions) => LiveSource;
export type Discover = (root: string) => Promise<Discovery>;
