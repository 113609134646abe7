// The wire form of a whole event-file read between a read worker and the main thread: series columns transferred, not copied.

import type { ReadError } from '../readers/types';
import { ScalarSeries, type SeriesColumns } from '../series/scalar-series';
import { SeriesSet } from '../series/series-set';
import type { TfEventsReadResult } from './event-stream';
import { TextStore, type TextStoreSnapshot } from './text-store';
import { HistogramStore, type HistogramStoreSnapshot } from '../readers/histogram-store';

/** What the main thread asks a worker: read this file whole. */
export interface ReadJob {
  id: number;
  path: string;
  checkDataCrc: boolean;
  /** Only these tags' values are kept (TfEventsReadOptions.onlyScalars); absent: every tag. */
  onlyScalars?: readonly string[];
}

/** A read's result with each series as its columns. */
export interface PackedRead {
  id: number;
  records: number;
  errors: ReadError[];
  fileVersion: string | null;
  bytes: number;
  skippedValues: number;
  scalars: [string, SeriesColumns][];
  histograms: [string, SeriesColumns][];
  texts: TextStoreSnapshot;
  histogramSteps: HistogramStoreSnapshot;
  config: Record<string, unknown> | null;
}

/** A worker's answer: the read, or why the worker could not read (the main thread then reads in-thread). */
export type ReadAnswer =
  | { id: number; ok: true; read: PackedRead }
  | { id: number; ok: false; message: string };

function packSet(set: SeriesSet, transfer: ArrayBuffer[]): [string, SeriesColumns][] {
  const out: [string, SeriesColumns][] = [];
  for (const [tag, s] of set.entries()) {
    const c = s.columns();
    transfer.push(
      c.steps.buffer as ArrayBuffer,
      c.wall.buffer as ArrayBuffer,
      c.values.buffer as ArrayBuffer,
    );
    out.push([tag, c]);
  }
  return out;
}

/** The message for a finished read and the buffers to transfer with it (the worker's series are unusable after). */
export function packRead(id: number, r: TfEventsReadResult): { read: PackedRead; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const read: PackedRead = {
    id,
    records: r.records,
    errors: r.errors,
    fileVersion: r.fileVersion,
    bytes: r.bytes,
    skippedValues: r.skippedValues,
    scalars: packSet(r.series, transfer),
    histograms: packSet(r.histograms, transfer),
    texts: r.texts.snapshot(),
    histogramSteps: r.histogramSteps.snapshot(),
    config: r.config,
  };
  return { read, transfer };
}

function unpackSet(list: [string, SeriesColumns][]): SeriesSet {
  const set = new SeriesSet();
  for (const [tag, c] of list) set.adopt(tag, ScalarSeries.fromColumns(c));
  return set;
}

/** The read as the in-thread reader answers it. */
export function unpackRead(p: PackedRead): TfEventsReadResult {
  return {
    format: 'tfevents',
    records: p.records,
    series: unpackSet(p.scalars),
    histograms: unpackSet(p.histograms),
    errors: p.errors,
    fileVersion: p.fileVersion,
    bytes: p.bytes,
    skippedValues: p.skippedValues,
    texts: TextStore.fromSnapshot(p.texts),
    histogramSteps: HistogramStore.fromSnapshot(p.histogramSteps),
    config: p.config,
  };
}
