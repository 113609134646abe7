// Parses `macmon pipe` JSON lines (sudoless Apple-silicon power, temperature, GPU frequency and usage).

import type { AppleGpu } from '../../shared/system-types';

export const MACMON_ARGS: readonly string[] = ['pipe', '-s', '1', '-i', '250'];

/** The last complete, well-formed line wins; a half-written last line (the process killed mid-write) is skipped. */
export function parseMacmonOutput(text: string): AppleGpu | null {
  const lines = text.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]?.trim();
    if (!line || !line.startsWith('{')) continue;
    const gpu = parseMacmonLine(line);
    if (gpu) return gpu;
  }
  return null;
}

export function parseMacmonLine(line: string): AppleGpu | null {
  let doc: unknown;
  try {
    doc = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof doc !== 'object' || doc === null) return null;
  const d = doc as Record<string, unknown>;
  // gpu_usage is [frequency MHz, busy ratio 0..1] (the README's "%" comment notwithstanding).
  const usage = Array.isArray(d['gpu_usage']) ? (d['gpu_usage'] as unknown[]) : [];
  const ratio = finite(usage[1]);
  const temp =
    typeof d['temp'] === 'object' && d['temp'] !== null ? (d['temp'] as Record<string, unknown>) : {};
  const freq = finite(usage[0]);
  return {
    source: 'macmon',
    name: null,
    utilizationPct: ratio !== null && ratio >= 0 && ratio <= 1 ? ratio * 100 : null,
    rendererUtilizationPct: null,
    tilerUtilizationPct: null,
    inUseMemoryMiB: null,
    allocatedMemoryMiB: null,
    powerW: nonNegative(finite(d['gpu_power'])),
    // macmon reports 0 when it could not read the sensor.
    temperatureC: positive(finite(temp['gpu_temp_avg'])),
    frequencyMHz: nonNegative(freq),
  };
}

/** ioreg knows utilisation and memory; macmon adds power, temperature and frequency. */
export function mergeAppleGpu(ioreg: AppleGpu | null, macmon: AppleGpu | null): AppleGpu | null {
  if (!ioreg) return macmon;
  if (!macmon) return ioreg;
  return {
    ...ioreg,
    source: 'ioreg+macmon',
    utilizationPct: ioreg.utilizationPct ?? macmon.utilizationPct,
    powerW: macmon.powerW,
    temperatureC: macmon.temperatureC,
    frequencyMHz: macmon.frequencyMHz,
  };
}

function finite(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function nonNegative(v: number | null): number | null {
  return v !== null && v >= 0 ? v : null;
}

function positive(v: number | null): number | null {
  return v !== null && v > 0 ? v : null;
}
