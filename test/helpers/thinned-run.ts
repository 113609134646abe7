// Test helper: a run of two 40k-step tags that an 8 MB memory cap thins, and whether a zoomed window of it is exact.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  encodeFileVersionEvent,
  encodeScalarEvent,
  eventFileName,
  frameRecord,
} from '../../src/core/tfevents/writer';

export const STEPS = 40_000;
/** The cap (MB) under which each tag is past its share (a sixteenth) and thinned, its file still readable back. */
export const CAP_MB = 8;
const T0 = 1_700_000_000;
export const loss = (step: number): number => 1 + Math.sin(step * 0.37) * 0.25 + (step % 7) * 0.01;
export const reward = (step: number): number => Math.cos(step * 0.013) + (step % 5) * 0.1;
/** A zoomed range early in the run (thinned from the first check on): 1,000 steps on a chart 2,000 px wide. */
export const ZOOM = { pixels: 2000, xMin: 2_000, xMax: 2_999, axis: 'step' as const };

/** Writes the run's one event file into `dir` (`scale` changes every value: another file's points); its path. */
export function writeThinnedRun(dir: string, scale = 1): string {
  const records = [frameRecord(encodeFileVersionEvent(T0))];
  for (let step = 0; step < STEPS; step++)
    records.push(
      frameRecord(
        encodeScalarEvent(T0 + step, step, [
          { tag: 'loss', value: loss(step) * scale },
          { tag: 'reward', value: reward(step) * scale },
        ]),
      ),
    );
  const file = join(dir, eventFileName(T0));
  writeFileSync(file, Buffer.concat(records));
  return file;
}

/** Whether a window holds every step of ZOOM (and the nearest point past each edge) with `of(step)` as float32, as
 * the file holds it. */
export function exactInZoom(
  w: { steps: Float64Array; values: Float64Array; inRange: number },
  of: (s: number) => number,
): boolean {
  if (w.inRange !== 1000 || w.steps.length !== 1002) return false;
  for (let i = 0; i < 1002; i++)
    if (w.steps[i] !== ZOOM.xMin - 1 + i || w.values[i] !== Math.fround(of(ZOOM.xMin - 1 + i))) return false;
  return true;
}
