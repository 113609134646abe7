// Public surface of system sampling: the sampler, its factory, and the parsers other layers may reuse.

export { SystemSampler } from './sampler';
export { realClock } from './clock';
export type { Clock } from './clock';
export type { SamplerOptions, SamplerSources, SnapshotListener } from './sampler';
export { createSystemSampler } from './create-sampler';
export type { CreateSamplerOptions } from './create-sampler';
export { NvidiaSmi } from './nvidia-smi';
export type { NvidiaQueryKind, NvidiaQueryResult, NvidiaSmiOptions } from './nvidia-smi';
export { NvidiaSource, NO_GPU_MESSAGE, describe as describeNvidiaError } from './nvidia-source';
export type { NvidiaSample, NvidiaSourceOptions } from './nvidia-source';
export { NvidiaStream } from './nvidia-stream';
export type { NvidiaStreamLike, NvidiaStreamOptions, StreamRead } from './nvidia-stream';
export { parseNvidiaXml, normaliseNvidiaLog } from './nvidia-xml';
export type { NvidiaReport } from './nvidia-xml';
export { parseQueryGpuCsv, parseComputeAppsCsv, FAST_QUERY_FIELDS } from './nvidia-csv';
export { parseIoregGpu, parseIoregAccelerators } from './apple-ioreg';
export { parseMacmonOutput, parseMacmonLine, mergeAppleGpu } from './apple-macmon';
export { AppleSource } from './apple-source';
export { readHost, systeminformationFns } from './host';
export { ProcStatCpuLoad } from './cpu-load';
export type { HostInfoFns, HostSample } from './host';
export { TrainingProcessTracker } from './training-process';
export type { RunDir, TrainingSample } from './training-process';
export { toSystemWatchLine } from './watch-line';
export type { Spawner } from './run-command';
