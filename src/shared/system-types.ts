// Types of one system sample (GPU, Apple GPU, CPU, memory, training process); pure TS so the renderer can import it.

/** A process nvidia-smi lists on a GPU. `type` is nvidia-smi's own code: "C", "G", "C+G", "M"… */
export interface GpuProcess {
  pid: number;
  name: string | null;
  type: string | null;
  usedMemoryMiB: number | null;
}

export interface GpuClocks {
  graphicsMHz: number | null;
  smMHz: number | null;
  memMHz: number | null;
}

/** One NVIDIA GPU, the same shape whether nvidia-smi reported one GPU or many. Every value nvidia-smi
 * could not give ("N/A", "[Not Supported]", an unknown error, a missing element) is null. */
export interface NvidiaGpu {
  index: number;
  name: string | null;
  uuid: string | null;
  pciBusId: string | null;
  utilizationGpuPct: number | null;
  utilizationMemoryPct: number | null;
  memoryUsedMiB: number | null;
  memoryTotalMiB: number | null;
  temperatureC: number | null;
  powerDrawW: number | null;
  powerLimitW: number | null;
  fanSpeedPct: number | null;
  clocks: GpuClocks;
  /** Short names of the active clock throttle ("event") reasons, e.g. ["sw_power_cap"]; null when not reported. */
  throttleReasonsActive: string[] | null;
  /** "Enabled" / "Disabled" as nvidia-smi says it; null when N/A (no MIG-capable GPU). */
  migMode: string | null;
  /** null when this sample did not include the process list (the light CSV query). */
  processes: GpuProcess[] | null;
  /** When the detail fields (processes, throttle reasons, MIG, limits) were last read; null if never. */
  detailAt: number | null;
}

/** Why nvidia-smi gave no usable answer. */
export type NvidiaQueryError =
  | { kind: 'not-found'; message: string }
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'exit'; code: number | null; signal: string | null; stderr: string }
  | { kind: 'parse'; message: string }
  | { kind: 'too-large'; limitBytes: number }
  | { kind: 'spawn'; message: string };

/** What the system panel shows about the NVIDIA source. `absent` is shown once, not every second. */
export type NvidiaStatus =
  | { state: 'pending' }
  | { state: 'disabled'; message: string }
  | { state: 'ok'; gpuCount: number; driverVersion: string | null }
  | { state: 'absent'; message: string; reason: string }
  | { state: 'failing'; message: string; error: NvidiaQueryError };

/** Apple-silicon GPU figures readable without sudo (ioreg PerformanceStatistics or macmon). */
export interface AppleGpu {
  source: 'ioreg' | 'macmon' | 'ioreg+macmon';
  /** e.g. "Apple M2 Pro" (ioreg's "model"); null when not reported. */
  name: string | null;
  utilizationPct: number | null;
  rendererUtilizationPct: number | null;
  tilerUtilizationPct: number | null;
  inUseMemoryMiB: number | null;
  allocatedMemoryMiB: number | null;
  powerW: number | null;
  temperatureC: number | null;
  frequencyMHz: number | null;
}

/** Why a process is taken for a run's trainer: it holds a file open under the run folder, its working
 * directory is the run folder (or below it), or its command line names the run folder. */
export type ProcessEvidence = 'open-files' | 'cwd' | 'command-line';

/** One process attributed to a run, with the evidence that tied it to the run. */
export interface RunProcess {
  pid: number;
  evidence: ProcessEvidence;
  /** nvidia-smi lists it as a compute process (a fact about the process, never evidence for a run). */
  onGpu: boolean;
}

/** A run's training job (its attributed processes, sorted by pid) and their footprint, summed. A run with no
 * evidence has no entry: "not found", never another run's process. */
export interface TrainingProcess {
  /** The run's name (RunInfo.run). */
  run: string;
  processes: RunProcess[];
  /** Percent of one core (can exceed 100 for multi-threaded processes); null on the first sample. */
  cpuPct: number | null;
  rssMiB: number | null;
}

/** Every process known for `run` was gone at `at` (ms since epoch; the sample that found them gone), having
 * been seen alive at `lastSeenAt`. Reported once, on the one snapshot that saw it. */
export interface ProcessExit {
  run: string;
  pids: number[];
  at: number;
  lastSeenAt: number;
}

export interface SystemSnapshot {
  /** ms since epoch when the sample was taken. */
  t: number;
  cpuPct: number | null;
  memPct: number | null;
  memUsedMiB: number | null;
  memTotalMiB: number | null;
  /** null when the NVIDIA query failed or there is no NVIDIA GPU (see `nvidia`). */
  gpus: NvidiaGpu[] | null;
  /** The GPUs are the last read's figures again: this tick's read was late or gave none (never an empty list
   * between two that name the GPUs). Absent or false on a fresh read. */
  gpusStale?: boolean;
  nvidia: NvidiaStatus;
  /** True on the one snapshot where `nvidia` changed state, so the panel announces it once. */
  nvidiaChanged: boolean;
  appleGpu: AppleGpu | null;
  /** One entry per run with an attributed process (none for a run without evidence). */
  trainingProcesses: TrainingProcess[];
  /** Runs whose known processes all exited since the previous snapshot. */
  processExits: ProcessExit[];
}

/** The `"type": "system"` line of `rlwatch watch --json` (command-line contract). */
export interface SystemWatchLine {
  t: number;
  type: 'system';
  cpuPct: number | null;
  memPct: number | null;
  /** The GPU figures repeat the last read's (this tick's was late). */
  gpusStale: boolean;
  gpus: Array<{
    index: number;
    name: string | null;
    utilizationPct: number | null;
    memoryUsedMiB: number | null;
    memoryTotalMiB: number | null;
    temperatureC: number | null;
    powerDrawW: number | null;
  }>;
}
