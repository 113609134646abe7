// Parses `nvidia-smi --query-gpu=… --format=csv[,noheader][,nounits]` and `--query-compute-apps` output.

import type { GpuProcess, NvidiaGpu } from '../../shared/system-types';
import { parseInteger, parseMiB, parseNumber, parseText } from './units';

/** The light per-second query: fields every driver since the Kepler era accepts. An unknown field makes
 * nvidia-smi reject the whole query, so nothing version-specific goes here (that comes from the XML). */
export const FAST_QUERY_FIELDS = [
  'index',
  'uuid',
  'name',
  'pci.bus_id',
  'utilization.gpu',
  'utilization.memory',
  'memory.used',
  'memory.total',
  'temperature.gpu',
  'power.draw',
  'power.limit',
  'fan.speed',
  'clocks.gr',
  'clocks.sm',
  'clocks.mem',
] as const;

export const FAST_QUERY_ARGS: readonly string[] = [
  `--query-gpu=${FAST_QUERY_FIELDS.join(',')}`,
  '--format=csv,noheader,nounits',
];

/** nvidia-smi accepts several names for one field and prints the long one in headers. */
const ALIASES: Record<string, string> = {
  'clocks.current.graphics': 'clocks.gr',
  'clocks.current.sm': 'clocks.sm',
  'clocks.current.memory': 'clocks.mem',
  gpu_name: 'name',
  gpu_uuid: 'uuid',
  gpu_bus_id: 'pci.bus_id',
  'mig.mode.current': 'mig.mode.current',
};

export type CsvParseResult<T> = { ok: true; value: T } | { ok: false; message: string };

/** Header-aware when a header is present (`--format=csv`, units in brackets); otherwise the columns are
 * `fields`, in order. Values with or without units parse the same. */
export function parseQueryGpuCsv(
  text: string,
  fields: readonly string[] = FAST_QUERY_FIELDS,
): CsvParseResult<NvidiaGpu[]> {
  const table = readTable(text, fields);
  if (!table.ok) return table;
  const gpus = table.value.map((row, position): NvidiaGpu => {
    const get = (f: string): string | undefined => row.get(f);
    return {
      index: parseInteger(get('index')) ?? position,
      name: parseText(get('name')),
      uuid: parseText(get('uuid')),
      pciBusId: parseText(get('pci.bus_id')),
      utilizationGpuPct: parseNumber(get('utilization.gpu')),
      utilizationMemoryPct: parseNumber(get('utilization.memory')),
      memoryUsedMiB: parseMiB(get('memory.used')),
      memoryTotalMiB: parseMiB(get('memory.total')),
      temperatureC: parseNumber(get('temperature.gpu')),
      powerDrawW: parseNumber(get('power.draw')),
      powerLimitW: parseNumber(get('power.limit')),
      fanSpeedPct: parseNumber(get('fan.speed')),
      clocks: {
        graphicsMHz: parseNumber(get('clocks.gr')),
        smMHz: parseNumber(get('clocks.sm')),
        memMHz: parseNumber(get('clocks.mem')),
      },
      throttleReasonsActive: null,
      migMode: parseText(get('mig.mode.current')),
      processes: null,
      detailAt: null,
    };
  });
  return { ok: true, value: gpus };
}

export const COMPUTE_APPS_FIELDS = ['gpu_uuid', 'pid', 'process_name', 'used_gpu_memory'] as const;

export interface ComputeApp extends GpuProcess {
  gpuUuid: string | null;
}

export function parseComputeAppsCsv(
  text: string,
  fields: readonly string[] = COMPUTE_APPS_FIELDS,
): CsvParseResult<ComputeApp[]> {
  const table = readTable(text, fields);
  if (!table.ok) return table;
  const apps: ComputeApp[] = [];
  for (const row of table.value) {
    const pid = parseInteger(row.get('pid'));
    if (pid === null) continue;
    apps.push({
      gpuUuid: parseText(row.get('uuid')),
      pid,
      name: parseText(row.get('process_name')),
      // --query-compute-apps lists compute processes only.
      type: 'C',
      usedMemoryMiB: parseMiB(row.get('used_gpu_memory')),
    });
  }
  return { ok: true, value: apps };
}

function readTable(text: string, fields: readonly string[]): CsvParseResult<Array<Map<string, string>>> {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines.length === 0) return { ok: true, value: [] };
  const first = splitRow(lines[0] ?? '').map(canonicalField);
  // A data row can hold a field's name as a value ("name"), so one match is not a header; two are.
  const matches = fields.filter((f) => first.includes(canonicalField(f))).length;
  const hasHeader = matches >= Math.min(2, fields.length);
  const columns = hasHeader ? first : fields.map(canonicalField);
  const rows = (hasHeader ? lines.slice(1) : lines).map((line) => {
    const cells = splitRow(line);
    const row = new Map<string, string>();
    columns.forEach((name, i) => {
      const cell = cells[i];
      if (cell !== undefined) row.set(name, cell);
    });
    return row;
  });
  if (!hasHeader && rows.some((r) => r.size !== columns.length)) {
    return { ok: false, message: `expected ${columns.length} columns per row` };
  }
  return { ok: true, value: rows };
}

/** nvidia-smi never quotes; none of the fields we read can contain a comma (a process path could: rare, accepted). */
function splitRow(line: string): string[] {
  return line.split(',').map((c) => c.trim());
}

/** "memory.used [MiB]" → "memory.used", then the one name we use for it. */
function canonicalField(name: string): string {
  const bare = name.replace(/\s*\[[^\]]*\]\s*$/, '').trim();
  return ALIASES[bare] ?? bare;
}
