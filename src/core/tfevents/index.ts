// Public API of the TensorBoard event-file reader (and the writer used by the demo, tests and bench).

export { readEventFile, EventFileReader } from './event-file-reader';
export type { EventFileReaderOptions, ReadMoreOptions, ReadMoreResult } from './event-file-reader';
export { EventStream } from './event-stream';
export type { StreamState, TfEventsReadOptions, TfEventsReadResult } from './event-stream';
export { RecordReader, DEFAULT_MAX_RECORD_BYTES, recordCrcMatches } from './record-reader';
export type { RecordReaderOptions, RecordStep } from './record-reader';
export { EventDecoder, HISTOGRAM_STATS, histogramSeriesName } from './event-decoder';
export type { HistogramStat } from './event-decoder';
export { ProtoError } from '../readers/proto-cursor';
export { crc32c, maskedCrc32c } from './crc32c';
export * from './writer';
