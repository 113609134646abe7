// Public surface of the persistent store: openStore, the Store interface and its records.

export { openStore, defaultLoader, moveAside, AUTO_FULL_CHECK_BYTES } from './open';
export type { OpenStoreOptions, SqliteConstructor, SqliteLoader } from './open';
export { defaultStoreDir, defaultStorePath, STORE_FILE_NAME } from './paths';
export type { PlatformEnv } from './paths';
export { MemoryStore } from './memory-store';
export { SqliteStore } from './sqlite-store';
export { SCHEMA_VERSION } from './schema';
export { DEFAULT_RETENTION } from './types';
export type * from './types';
export { ResilientStore } from './resilient-store';
export type { StoreDegradation, StoreSpaceEvent } from './resilient-store';
export { describeStoreFailure } from './open';
export { readSettingReadOnly } from './read-only';
