// Domain types shared by core, main and renderer: runs, sources, scalar points.

import type { ReadErrorKindName, SourceFormatName } from './formats';

export interface SourceInfo {
  file: string;
  format: SourceFormatName;
  records: number;
  errors: { offset: number; kind: ReadErrorKindName; message: string }[];
}

export interface RunInfo {
  /** Path relative to the opened folder, '.' for the folder itself. */
  run: string;
  sources: SourceInfo[];
  tags: string[];
  points: number;
  /** ms since epoch of the newest point's wall time, null before any point. */
  lastEventAt: number | null;
  /** ms since epoch of the newest source file mtime. */
  fileWrittenAt: number | null;
  progress: { fraction: number | null; etaSeconds: number | null } | null;
}

/** A value as it crosses a JSON boundary: JSON has no NaN or Infinity, so those travel as strings. */
export type WireValue = number | 'NaN' | 'Infinity' | '-Infinity';

export const toWire = (v: number): WireValue =>
  Number.isFinite(v) ? v : Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';

export const fromWire = (v: WireValue): number => (typeof v === 'number' ? v : Number(v));

/** Scalar points of one tag in columns; wall times in seconds since epoch. */
export interface ScalarColumns {
  steps: number[];
  wallTimes: number[];
  values: WireValue[];
}

export interface SeriesDelta extends ScalarColumns {
  run: string;
  tag: string;
}

export interface AppInfo {
  version: string;
  mode: 'electron' | 'serve';
  root: string | null;
  canChooseFolder: boolean;
}

export interface AppNotice {
  level: 'info' | 'warning' | 'error';
  message: string;
}
