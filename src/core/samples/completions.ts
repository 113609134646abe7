// JSONL completion logs: telling them from metric JSONL by their first objects, and reading them live into a SampleStore (its per-step means charted).

import { basename, dirname } from 'node:path';
import type { SourceFormatName } from '../../shared/formats';
import type { SampleSource } from '../../shared/samples';
import { LineRecordReader } from '../readers/appended-reader';
import { lines, type Framed } from '../readers/line-framer';
import type { ReaderOptions } from '../readers/reader';
import { isPlainObject, pickAxes } from '../readers/rows';
import type { SourceReadResult } from '../readers/types';
import { decodeUtf8, jsonNumber, parseJsonLenient } from '../readers/values';
import { SampleStore } from './sample-store';
import { leaf } from './sample-means';

/** Keys whose text values make an object a sample (prompt, completion and their kin), matched lower-case. */
const TEXT_KEYS =
  /^(prompts?|completions?|responses?|generations?|generated(_text)?|outputs?|output_text|answers?|query|queries|questions?|texts?|chosen|rejected|messages|conversations?|inputs?|instructions?|targets?|references?|solutions?|samples?|rollouts?|trajector(y|ies)|reasoning|thoughts?)$/;
/** A string this long under any key is sample text, not a metric label. */
const LONG_TEXT = 200;
/** A file this long unchanged has its last step complete: its means are charted (the next step's first row or the
 * writer's end would close it too). Trainers write a step's samples in one burst. */
export const COMPLETIONS_SETTLED_MS = 5000;
/** File names that say "samples" (a hint: content still decides). */
const SAMPLE_NAME = /complet|sample|rollout|generation|response|trajector/;

/** A per-step dump's file name: verl's `{step}.jsonl`, `step_N.jsonl`, `step-N.jsonl`, `global_step_N.jsonl`. */
const DUMP_NAME = /^(?:(?:global_)?step[_-]?)?(\d{1,15})\.jsonl$/i;

/**
 * The step a per-step dump file's name says (`12.jsonl` → 12), or null for any other name. Such a file is one step of
 * the sample source named by its folder (verl's `rollouts/{step}.jsonl`, a custom `samples/step_N.jsonl`), not a
 * source of its own.
 */
export function dumpStep(name: string): number | null {
  const m = DUMP_NAME.exec(name);
  return m ? Number(m[1]) : null;
}

/** Whether one parsed object is a sample: text under a prompt/completion-like key, or any long string. */
function isSampleObject(obj: Record<string, unknown>): boolean {
  for (const [k, v] of Object.entries(obj)) {
    const key = leaf(k);
    if (typeof v === 'string') {
      if (v.length >= LONG_TEXT) return true;
      if (TEXT_KEYS.test(key) && v.trim() !== '') return true;
    } else if (
      Array.isArray(v) &&
      TEXT_KEYS.test(key) &&
      v.some((x) => typeof x === 'string' || isPlainObject(x))
    )
      return true; // chat messages [{role, content}] or a list of strings
  }
  return false;
}

/**
 * The kind of a JSONL file from its first objects (up to 5): 'completions' when one is a sample with a step (a
 * per-step dump's file name is one),
 * 'jsonl' when the first has a step-like key and a number besides (metrics), else null. A file
 * named like samples (completions.jsonl, rollouts-3.jsonl) is completions once its first line is an object.
 */
export function jsonlKind(
  objects: readonly Record<string, unknown>[],
  name: string,
  isMetrics: (first: Record<string, unknown>) => boolean,
): 'jsonl' | 'completions' | null {
  const first = objects[0];
  if (first === undefined) return null;
  // A step-like key tells training samples from datasets ({"text": …} lines without one).
  // A per-step dump's name is its step (`samples/step_3.jsonl` of {prompt, response} rows).
  const named = dumpStep(name) !== null;
  const sample = objects
    .slice(0, 5)
    .some((o) => (named || pickAxes(Object.keys(o)).step !== null) && isSampleObject(o));
  if (sample) return 'completions';
  if (isMetrics(first)) return 'jsonl';
  return SAMPLE_NAME.test(name.toLowerCase()) ? 'completions' : null;
}

/** The step of a sample: its step-like key's number, else the step before it (0 at first). */
function stepOf(obj: Record<string, unknown>, last: number): number {
  const key = pickAxes(Object.keys(obj)).step;
  const n = key === null ? undefined : jsonNumber(obj[key]);
  return n !== undefined && Number.isFinite(n) ? n : last;
}

/**
 * A completions file read as it grows: every object a sample of the source named by the file, at its step; a per-step
 * dump's (`dumpStep`) every object a sample of the source named by its folder, at the step its name says. Its
 * number columns' per-step means (SampleMeans) go into the reader's series once a step is complete: when a later
 * step starts, when the file is final, or when it has not changed for COMPLETIONS_SETTLED_MS (the live tail).
 */
export class CompletionsReader extends LineRecordReader {
  readonly format: SourceFormatName = 'completions';
  private store = new SampleStore(undefined, () => this.series);
  private lastStep: number;
  private readonly source: string;
  /** A per-step dump's step (from its file name): every row's, whatever the row says. */
  private readonly fileStep: number | null;
  private readonly now: () => number;
  /** The file's modification time (seconds) when it was last read. */
  private mtime = Number.NaN;

  constructor(path: string, options: ReaderOptions = {}) {
    super(path, options, false);
    this.fileStep = dumpStep(basename(path));
    this.source = this.fileStep === null ? basename(path) : basename(dirname(path)) || basename(path);
    this.now = options.now ?? Date.now;
    this.lastStep = this.fileStep ?? 0;
  }

  get samples(): SampleSource {
    return this.store;
  }

  override result(): SourceReadResult {
    return { ...super.result(), samples: this.store };
  }

  protected override restart(): void {
    super.restart();
    this.store = new SampleStore(undefined, () => this.series);
    this.lastStep = this.fileStep ?? 0;
  }

  protected override chunk(bytes: Uint8Array, start: number, mtime: number): void {
    this.mtime = mtime;
    super.chunk(bytes, start, mtime);
  }

  protected override finish(mtime: number): void {
    super.finish(mtime);
    this.store.closeSteps();
  }

  protected override caughtUp(): void {
    super.caughtUp();
    if (this.store.stepsOpen && this.now() - this.mtime * 1000 >= COMPLETIONS_SETTLED_MS)
      this.store.closeSteps();
  }

  protected consume(framed: Framed, _mtime: number, isTail: boolean): void {
    for (const line of lines(framed)) {
      const text = decodeUtf8(line.bytes).trim();
      if (text === '') continue;
      const parsed = parseJsonLenient(text);
      if (!parsed.ok) {
        // An unterminated last line of a finished file is a cut-off write, not garbage.
        const kind = isTail && parsed.atEnd ? 'truncated' : 'decode';
        this.error(kind, line.offset, `completions JSONL: ${parsed.message} of the line`);
        continue;
      }
      const value = parsed.value;
      if (!isPlainObject(value)) {
        this.error('decode', line.offset, 'completions JSONL: line is not a JSON object');
        continue;
      }
      this.lastStep = this.fileStep ?? stepOf(value, this.lastStep);
      this.store.add(this.source, 'jsonl', this.lastStep, Object.entries(value));
      this.countRecords(1);
    }
  }
}
