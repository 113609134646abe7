// Paths to the recorded nvidia-smi and Apple outputs used by the system tests.

import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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
