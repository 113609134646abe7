// The newest system sample: per NVIDIA GPU (DCGM exporter's label names), CPU, memory, the training process.
//
// Names are rlwatch_gpu_* in Prometheus units (ratio, bytes, celsius, watts), not DCGM_FI_DEV_*: a node that
// also runs dcgm-exporter would otherwise get two series of one name from two jobs with different units
// (DCGM_FI_DEV_FB_USED is MiB, GPU_UTIL percent). The labels are DCGM's (gpu, UUID, device, modelName,
// pci_bus_id, Hostname), so queries and dashboards join the two with `on(UUID)` (in a container Hostname is the
// container id by default, not the node: README, "Joining DCGM exporter").

import { Gauge, type Registry } from 'prom-client';
import type { NvidiaGpu, SystemSnapshot } from '../../shared/system-types';
import { boundLabel } from './label-bounds';

const MIB = 1024 * 1024;
const GPU_LABELS = ['gpu', 'UUID', 'device', 'modelName', 'pci_bus_id', 'Hostname'] as const;
type GpuLabel = (typeof GPU_LABELS)[number];

export class SystemMetrics {
  private readonly gpu: Record<
    'util' | 'memUsed' | 'memTotal' | 'temp' | 'power' | 'powerLimit',
    Gauge<GpuLabel>
  >;
  private readonly host: Record<
    'cpu' | 'memUsed' | 'memTotal' | 'memRatio' | 'sampleTime',
    Gauge<'Hostname'>
  >;
  private readonly proc: Record<'cpu' | 'rss' | 'count', Gauge<'Hostname' | 'run'>>;

  constructor(
    registry: Registry,
    private readonly hostname: string,
  ) {
    const gpu = (name: string, help: string): Gauge<GpuLabel> =>
      new Gauge({ name, help, labelNames: [...GPU_LABELS], registers: [registry] });
    const host = (name: string, help: string): Gauge<'Hostname'> =>
      new Gauge({ name, help, labelNames: ['Hostname'], registers: [registry] });
    this.gpu = {
      util: gpu(
        'rlwatch_gpu_utilization_ratio',
        'GPU utilisation (0–1), as nvidia-smi reports it (DCGM_FI_DEV_GPU_UTIL / 100).',
      ),
      memUsed: gpu(
        'rlwatch_gpu_memory_used_bytes',
        'GPU framebuffer memory used (DCGM_FI_DEV_FB_USED in bytes).',
      ),
      memTotal: gpu('rlwatch_gpu_memory_total_bytes', 'GPU framebuffer memory in total.'),
      temp: gpu('rlwatch_gpu_temperature_celsius', 'GPU temperature (DCGM_FI_DEV_GPU_TEMP).'),
      power: gpu('rlwatch_gpu_power_usage_watts', 'GPU power draw (DCGM_FI_DEV_POWER_USAGE).'),
      powerLimit: gpu('rlwatch_gpu_power_limit_watts', 'GPU power limit.'),
    };
    this.host = {
      cpu: host('rlwatch_cpu_utilization_ratio', 'CPU utilisation of the machine, all cores (0–1).'),
      memUsed: host('rlwatch_memory_used_bytes', 'Memory in use on the machine.'),
      memTotal: host('rlwatch_memory_total_bytes', 'Memory of the machine.'),
      memRatio: host('rlwatch_memory_utilization_ratio', 'Memory in use on the machine (0–1).'),
      sampleTime: host('rlwatch_system_sample_timestamp_seconds', 'When the newest system sample was taken.'),
    };
    const proc = (name: string, help: string): Gauge<'Hostname' | 'run'> =>
      new Gauge({ name, help, labelNames: ['Hostname', 'run'], registers: [registry] });
    this.proc = {
      cpu: proc(
        'rlwatch_training_process_cpu_ratio',
        'CPU the training processes use, in cores (1 = one core busy).',
      ),
      rss: proc(
        'rlwatch_training_process_resident_memory_bytes',
        'Resident memory of the training processes.',
      ),
      count: proc(
        'rlwatch_training_processes',
        "Processes found as the run's training job (holding its files open, working in its folder, or naming it).",
      ),
    };
  }

  /** Exposes `snap` (nothing when null: a sample older than the caller's limit is not shown as current). */
  refresh(snap: SystemSnapshot | null): void {
    for (const g of [...Object.values(this.gpu), ...Object.values(this.host), ...Object.values(this.proc)])
      (g as Gauge<string>).reset();
    if (snap === null) return;
    const at = { Hostname: this.hostname };
    this.host.sampleTime.set(at, snap.t / 1000);
    setIf(this.host.cpu, at, snap.cpuPct, 0.01);
    setIf(this.host.memUsed, at, snap.memUsedMiB, MIB);
    setIf(this.host.memTotal, at, snap.memTotalMiB, MIB);
    setIf(this.host.memRatio, at, snap.memPct, 0.01);
    for (const p of snap.trainingProcesses) {
      const of = { ...at, run: boundLabel(p.run) };
      this.proc.count.set(of, p.processes.length);
      setIf(this.proc.cpu, of, p.cpuPct, 0.01);
      setIf(this.proc.rss, of, p.rssMiB, MIB);
    }
    for (const g of snap.gpus ?? []) this.exposeGpu(g);
  }

  private exposeGpu(g: NvidiaGpu): void {
    const labels: Record<GpuLabel, string> = {
      gpu: String(g.index),
      UUID: boundLabel(g.uuid ?? ''),
      device: `nvidia${g.index}`,
      modelName: boundLabel(g.name ?? ''),
      pci_bus_id: boundLabel(g.pciBusId ?? ''),
      Hostname: this.hostname,
    };
    setIf(this.gpu.util, labels, g.utilizationGpuPct, 0.01);
    setIf(this.gpu.memUsed, labels, g.memoryUsedMiB, MIB);
    setIf(this.gpu.memTotal, labels, g.memoryTotalMiB, MIB);
    setIf(this.gpu.temp, labels, g.temperatureC, 1);
    setIf(this.gpu.power, labels, g.powerDrawW, 1);
    setIf(this.gpu.powerLimit, labels, g.powerLimitW, 1);
  }
}

/** A missing reading is no series at all (never a 0 that looks like a measurement). */
function setIf<L extends string>(
  g: Gauge<L>,
  labels: Record<L, string>,
  v: number | null,
  scale: number,
): void {
  if (v !== null && Number.isFinite(v)) g.labels(labels).set(v * scale);
}
