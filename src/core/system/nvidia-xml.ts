// Normalises `nvidia-smi -q -x` output (any DTD v10–v13, Linux or WDDM, one GPU or many) into NvidiaGpu[].

import type { GpuProcess, NvidiaGpu } from '../../shared/system-types';
import { parseInteger, parseMiB, parseNumber, parseText } from './units';
import { parseXml } from './xml2js-loader';
import type { XmlObject, XmlValue } from './xml2js-loader';

export interface NvidiaReport {
  driverVersion: string | null;
  cudaVersion: string | null;
  gpus: NvidiaGpu[];
}

export type NvidiaParseResult = { ok: true; value: NvidiaReport } | { ok: false; message: string };

export function parseNvidiaXml(text: string, now: number): NvidiaParseResult {
  const parsed = parseXml(text);
  if (!parsed.ok) return { ok: false, message: parsed.message };
  return normaliseNvidiaLog(parsed.value, now);
}

/** Takes the object node-nvidia-smi would have returned (xml2js, explicitArray: false). */
export function normaliseNvidiaLog(doc: unknown, now: number): NvidiaParseResult {
  const log = asObject(asObject(doc)?.['nvidia_smi_log']);
  if (!log) return { ok: false, message: 'no <nvidia_smi_log> root element' };
  const gpus = asList(log['gpu'])
    .map(asObject)
    .filter((g): g is XmlObject => g !== null)
    .map((g, index) => normaliseGpu(g, index, now));
  return {
    ok: true,
    value: {
      driverVersion: parseText(text(log['driver_version'])),
      cudaVersion: parseText(text(log['cuda_version'])),
      gpus,
    },
  };
}

function normaliseGpu(g: XmlObject, index: number, now: number): NvidiaGpu {
  // The power section was renamed in v12 (gpu_power_readings) and power_draw split into average/instant in v13.
  const power = asObject(g['gpu_power_readings']) ?? asObject(g['power_readings']);
  return {
    // nvidia-smi numbers GPUs in PCI bus order, which is document order; minor_number is the /dev node instead.
    index,
    name: parseText(text(g['product_name'])),
    uuid: parseText(text(g['uuid'])),
    pciBusId: parseText(text(asObject(g['$'])?.['id'])) ?? parseText(text(pick(g, 'pci', 'pci_bus_id'))),
    utilizationGpuPct: parseNumber(text(pick(g, 'utilization', 'gpu_util'))),
    utilizationMemoryPct: parseNumber(text(pick(g, 'utilization', 'memory_util'))),
    memoryUsedMiB: parseMiB(text(pick(g, 'fb_memory_usage', 'used'))),
    memoryTotalMiB: parseMiB(text(pick(g, 'fb_memory_usage', 'total'))),
    temperatureC: parseNumber(text(pick(g, 'temperature', 'gpu_temp'))),
    powerDrawW: firstNumber(power, ['power_draw', 'average_power_draw', 'instant_power_draw']),
    powerLimitW: firstNumber(power, ['power_limit', 'current_power_limit', 'enforced_power_limit']),
    fanSpeedPct: parseNumber(text(g['fan_speed'])),
    clocks: {
      graphicsMHz: parseNumber(text(pick(g, 'clocks', 'graphics_clock'))),
      smMHz: parseNumber(text(pick(g, 'clocks', 'sm_clock'))),
      memMHz: parseNumber(text(pick(g, 'clocks', 'mem_clock'))),
    },
    throttleReasonsActive: throttleReasons(g),
    migMode: parseText(text(pick(g, 'mig_mode', 'current_mig'))),
    processes: processes(g['processes']),
    detailAt: now,
  };
}

/** "clocks_throttle_reasons" until driver ~535, "clocks_event_reasons" after; same children, new prefix. */
function throttleReasons(g: XmlObject): string[] | null {
  const section = asObject(g['clocks_event_reasons']) ?? asObject(g['clocks_throttle_reasons']);
  if (!section) return null;
  const active: string[] = [];
  for (const [key, value] of Object.entries(section)) {
    if (text(value)?.trim() !== 'Active') continue;
    active.push(key.replace(/^clocks_(event|throttle)_reason_/, ''));
  }
  return active;
}

function processes(section: XmlValue | undefined): GpuProcess[] | null {
  if (section === undefined) return null;
  const out: GpuProcess[] = [];
  for (const item of asList(asObject(section)?.['process_info'])) {
    const p = asObject(item);
    const pid = parseInteger(text(p?.['pid']));
    if (!p || pid === null) continue;
    out.push({
      pid,
      name: parseText(text(p['process_name'])),
      type: parseText(text(p['type'])),
      usedMemoryMiB: parseMiB(text(p['used_memory'])),
    });
  }
  return out;
}

function firstNumber(section: XmlObject | null, keys: string[]): number | null {
  for (const key of keys) {
    const v = parseNumber(text(section?.[key]));
    if (v !== null) return v;
  }
  return null;
}

function pick(obj: XmlObject, ...path: string[]): XmlValue | undefined {
  let cur: XmlValue | undefined = obj;
  for (const key of path) {
    const o = asObject(cur);
    if (!o) return undefined;
    cur = o[key];
  }
  return cur;
}

/** An element repeated by accident (or by a garbled dump) is an array; the first one wins. */
function asObject(v: unknown): XmlObject | null {
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'object' && first !== null && !Array.isArray(first) ? (first as XmlObject) : null;
}

/** explicitArray: false gives an object for one element and an array for several: always a list here. */
function asList(v: XmlValue | undefined): XmlValue[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** Element text: a string, or the `_` of an element that also has attributes. */
function text(v: XmlValue | undefined): string | undefined {
  const first = Array.isArray(v) ? v[0] : v;
  if (typeof first === 'string') return first;
  const inner = asObject(first)?.['_'];
  return typeof inner === 'string' ? inner : undefined;
}
