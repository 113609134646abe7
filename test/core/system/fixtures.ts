// Paths to the recorded nvidia-smi and Apple outputs used by the system tests.

import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FAST_QUERY_FIELDS } from '../../../src/core/system/nvidia-csv';

export const NVIDIA_DIR = fileURLToPath(new URL('../../fixtures/nvidia-smi/', import.meta.url));
export const XML_DIR = `${NVIDIA_DIR}influxdata__telegraf/`;
export const CSV_DIR = `${NVIDIA_DIR}utkuozdemir__nvidia_gpu_exporter/`;
export const APPLE_DIR = fileURLToPath(new URL('../../fixtures/apple/', import.meta.url));

export const xmlDumps = (): string[] =>
  readdirSync(XML_DIR)
    .filter((f) => f.endsWith('.xml'))
    .sort();
export const readXml = (name: string): string => readFileSync(XML_DIR + name, 'utf8');
export const readCsv = (name: string): string => readFileSync(CSV_DIR + name, 'utf8');
export const readApple = (name: string): string => readFileSync(APPLE_DIR + name, 'utf8');

/** A recorded `--query-gpu` capture (header, many fields) cut down to our fast fields, noheader: what
 * `nvidia-smi --query-gpu=<fast fields> --format=csv,noheader` printed on that machine, one line per GPU. */
export function fastRowsFromCapture(name: string): string {
  const [header, ...rows] = readCsv(name)
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '');
  const names = (header ?? '').split(',').map((h) => h.replace(/\s*\[[^\]]*\]\s*$/, '').trim());
  const alias: Record<string, string> = {
    'clocks.gr': 'clocks.current.graphics',
    'clocks.sm': 'clocks.current.sm',
    'clocks.mem': 'clocks.current.memory',
  };
  return rows
    .map((row) => {
      const cells = row.split(',').map((c) => c.trim());
      return FAST_QUERY_FIELDS.map((f) => {
        const at = names.indexOf(f) !== -1 ? names.indexOf(f) : names.indexOf(alias[f] ?? f);
        return at === -1 ? '[N/A]' : (cells[at] ?? '[N/A]');
      }).join(', ');
    })
    .join('\n');
}
