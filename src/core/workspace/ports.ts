// What a Workspace is given from outside: a folder walk (discovery) and a factory of live sources.

import type { SourceFormatName } from '../../shared/formats';
import type { EarlyRuns, Discovery as FolderDiscovery } from '../discovery';
import type { LiveSource, SourceOptions } from '../sources/live-source';

/** Runs found under the opened folder, per-folder problems (reported; the walk goes on), and the
 * folders walked (watched; without them, the folder and its runs' folders). */
export type Discovery = Pick<FolderDiscovery, 'runs' | 'errors'> & Partial<Pick<FolderDiscovery, 'dirs'>>;

/** `keep`: keys already given, by run folder, that a run found there again keeps (`DiscoverOptions.keep`);
 * `localDisk`: the folder is on a local disk (`DiscoverOptions.localDisk`); `early`: runs handed out while the walk
 * goes on (`DiscoverOptions.early`; a walk may hand out none). */
export type Discover = (
  root: string,
  keep?: ReadonlyMap<string, string>,
  localDisk?: boolean,
  early?: EarlyRuns,
) => Promise<Discovery>;
export type SourceFactory = (path: string, format: SourceFormatName, opts?: SourceOptions) => LiveSource;
