// Generator of a large folder of event files mostly of images and histograms (the bulk-read bench), written on the fly.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { hash, valueAt, wallAt } from './log-folder';
import { RecordFile } from './record-file';

/** How a run logs: PyTorch / tensorboardX (`add_image`'s Image proto, `add_histogram`'s HistogramProto, simple
 * values) or TF2 `tf.summary` (string tensors with plugin `images`, [k, 3] double tensors, scalar tensors). */
export type MediaStyle = 'pytorch' | 'tf2';

export interface MediaRunPlan {
  name: string;
  style: MediaStyle;
  /** What the run's steps mostly hold: one image a step, or many histograms a step (and an image now and then). */
  mix: 'images' | 'histograms';
  /** Event files of the run (a resumed run writes a second one). */
  files: number;
}

export interface MediaFolderOptions {
  /** Total bytes to write, split evenly over the runs. */
  totalBytes: number;
  runs?: number;
}

export interface MediaFolder {
  dir: string;
  files: string[];
  bytes: number;
  /** By kind: bytes of image, histogram and scalar records (framing included). */
  imageBytes: number;
  histogramBytes: number;
  scalarBytes: number;
  images: number;
  histograms: number;
  /** Scalar points written (what a read must find, every one). */
  scalarPoints: number;
  /** Histogram steps written (each a `TAG/count` point, …). */
  histogramPoints: number;
}

const SCALAR_TAGS = [
  'charts/SPS',
  'losses/entropy',
  'losses/policy_loss',
  'losses/value_loss',
  'train/reward',
];
const IMAGE_TAGS = ['samples/frame', 'samples/attention'];
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** A message being built as a list of byte parts (large ones are referenced, not copied, until written). */
class Parts {
  readonly list: Uint8Array[] = [];
  length = 0;

  raw(bytes: ArrayLike<number> | Uint8Array): this {
    const b = bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes);
    this.list.push(b);
    this.length += b.length;
    return this;
  }

  varint(v: number): this {
    const out: number[] = [];
    while (v >= 0x80) {
      out.push(v % 128 | 0x80);
      v = Math.floor(v / 128);
    }
    out.push(v);
    return this.raw(out);
  }

  key(field: number, wire: number): this {
    return this.varint(field * 8 + wire);
  }

  int(field: number, v: number): this {
    return this.key(field, 0).varint(v);
  }

  double(field: number, v: number): this {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, v, true);
    return this.key(field, 1).raw(b);
  }

  float(field: number, v: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    return this.key(field, 5).raw(b);
  }

  bytes(field: number, b: Uint8Array): this {
    return this.key(field, 2).varint(b.length).raw(b);
  }

  string(field: number, s: string): this {
    return this.bytes(field, new TextEncoder().encode(s));
  }

  message(field: number, m: Parts): this {
    this.key(field, 2).varint(m.length);
    for (const b of m.list) this.raw(b);
    return this;
  }

  doubles(field: number, values: readonly number[]): this {
    const b = new Uint8Array(values.length * 8);
    const dv = new DataView(b.buffer);
    values.forEach((v, i) => dv.setFloat64(i * 8, v, true));
    return this.bytes(field, b);
  }
}

/** One event file of the folder: each Event (its parts) a TFRecord. */
class EventParts {
  private readonly file: RecordFile;

  constructor(readonly path: string) {
    this.file = new RecordFile(path, 8 << 20);
  }

  get bytes(): number {
    return this.file.bytes;
  }

  /** Writes one Event (its parts) as a TFRecord; returns the record's size. */
  record(event: Parts): number {
    return this.file.record(event.length, (b, at) => {
      for (const part of event.list) {
        b.set(part, at);
        at += part.length;
      }
    });
  }

  close(): void {
    this.file.close();
  }
}

function eventHead(wall: number, step: number): Parts {
  return new Parts().double(1, wall).int(2, step);
}

/** Incompressible bytes standing in for PNG data (deterministic), sliced per image. */
function noisePool(bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  const words = new Uint32Array(out.buffer, 0, bytes >>> 2);
  for (let i = 0; i < words.length; i++) words[i] = hash(7, i, 3);
  return out;
}

const POOL = 1 << 20;

export class MediaFolderWriter {
  readonly folder: MediaFolder;
  private readonly pool = noisePool(POOL + 512 * 1024);

  constructor(dir: string) {
    this.folder = {
      dir,
      files: [],
      bytes: 0,
      imageBytes: 0,
      histogramBytes: 0,
      scalarBytes: 0,
      images: 0,
      histograms: 0,
      scalarPoints: 0,
      histogramPoints: 0,
    };
  }

  /** An image of 50–500 KB (skewed small, as PNG frames are) with a PNG signature. */
  private imageBytes(r: number, step: number, k: number): Uint8Array {
    const h = hash(r, step, k + 100);
    const u = (h & 0xffff) / 0xffff;
    const size = Math.round(50_000 + 450_000 * u * u);
    const at = (h >>> 16) % POOL;
    const img = this.pool.slice(at, at + size);
    img.set(PNG_SIGNATURE, 0);
    return img;
  }

  private imageEvent(style: MediaStyle, r: number, step: number, k: number, first: boolean): Parts {
    const png = this.imageBytes(r, step, k);
    const value = new Parts().string(1, IMAGE_TAGS[k]!);
    if (style === 'pytorch') {
      value.message(4, new Parts().int(1, 256).int(2, 256).int(3, 3).bytes(4, png));
    } else {
      const tensor = new Parts()
        .int(1, 7)
        .message(2, new Parts().message(2, new Parts().int(1, 3)))
        .bytes(8, new TextEncoder().encode('256'))
        .bytes(8, new TextEncoder().encode('256'))
        .bytes(8, png);
      value.message(8, tensor);
      if (first) value.message(9, new Parts().message(1, new Parts().string(1, 'images')));
    }
    return eventHead(wallAt(r, step), step).message(5, new Parts().message(1, value));
  }

  private histogramEvent(style: MediaStyle, r: number, step: number, k: number, first: boolean): Parts {
    const buckets = 30 + (hash(r, k, 11) % 71);
    const center = Math.sin(step * 1e-3 + k) * 0.5;
    const width = 0.1 + (k % 5) * 0.05;
    const limits: number[] = [];
    const counts: number[] = [];
    let num = 0;
    for (let i = 0; i < buckets; i++) {
      const left = center - 3 * width + (6 * width * i) / buckets;
      limits.push(left + (6 * width) / buckets);
      const z = (left - center) / width;
      const c = Math.round(1000 * Math.exp((-z * z) / 2)) + (hash(step, k, i) & 3);
      counts.push(c);
      num += c;
    }
    const min = center - 3 * width;
    const max = center + 3 * width;
    const tag = `weights/layer_${String(k).padStart(2, '0')}`;
    const value = new Parts().string(1, tag);
    if (style === 'pytorch') {
      const histo = new Parts()
        .double(1, min)
        .double(2, max)
        .double(3, num)
        .double(4, center * num)
        .double(5, num * width * width)
        .doubles(6, limits)
        .doubles(7, counts);
      value.message(5, histo);
    } else {
      const flat: number[] = [];
      for (let i = 0; i < buckets; i++) flat.push(i === 0 ? min : limits[i - 1]!, limits[i]!, counts[i]!);
      const tensor = new Parts()
        .int(1, 2)
        .message(2, new Parts().message(2, new Parts().int(1, buckets)).message(2, new Parts().int(1, 3)))
        .doubles(6, flat);
      value.message(8, tensor);
      if (first) value.message(9, new Parts().message(1, new Parts().string(1, 'histograms')));
    }
    return eventHead(wallAt(r, step), step).message(5, new Parts().message(1, value));
  }

  private scalarEvent(style: MediaStyle, r: number, step: number, k: number, first: boolean): Parts {
    const v = valueAt(r, k, step);
    const value = new Parts().string(1, SCALAR_TAGS[k]!);
    if (style === 'pytorch') value.float(2, v);
    else {
      const content = new Uint8Array(new Float32Array([v]).buffer);
      value.message(8, new Parts().int(1, 1).message(2, new Parts()).bytes(4, content));
      if (first) value.message(9, new Parts().message(1, new Parts().string(1, 'scalars')));
    }
    return eventHead(wallAt(r, step), step).message(5, new Parts().message(1, value));
  }

  /** Writes one run of about `bytes` bytes (in `plan.files` event files). */
  writeRun(r: number, plan: MediaRunPlan, bytes: number): void {
    const f = this.folder;
    const dir = join(f.dir, plan.name);
    mkdirSync(dir, { recursive: true });
    const perFile = bytes / plan.files;
    let step = 0;
    for (let n = 0; n < plan.files; n++) {
      const out = new EventParts(
        join(dir, `events.out.tfevents.${1_700_000_000 + r * 1000 + n}.bench.${r}.${n}`),
      );
      out.record(new Parts().double(1, wallAt(r, step)).string(3, 'brain.Event:2'));
      // TF writes a tag's plugin name with its first value in each file.
      const firstInFile = new Set<string>();
      const first = (key: string): boolean => {
        if (firstInFile.has(key)) return false;
        firstInFile.add(key);
        return true;
      };
      while (out.bytes < perFile) {
        for (let k = 0; k < SCALAR_TAGS.length; k++) {
          f.scalarBytes += out.record(this.scalarEvent(plan.style, r, step, k, first(`s${k}`)));
          f.scalarPoints++;
        }
        const histograms = plan.mix === 'histograms' ? 40 : 4;
        for (let k = 0; k < histograms; k++) {
          f.histogramBytes += out.record(this.histogramEvent(plan.style, r, step, k, first(`h${k}`)));
          f.histograms++;
          f.histogramPoints++;
        }
        const images = plan.mix === 'images' ? 1 : step % 25 === 0 ? 1 : 0;
        for (let k = 0; k < images; k++) {
          f.imageBytes += out.record(this.imageEvent(plan.style, r, step, step % 2, first(`i${step % 2}`)));
          f.images++;
        }
        step++;
      }
      out.close();
      f.files.push(out.path);
      f.bytes += out.bytes;
    }
  }
}

/** The default plan: 8 runs, six mostly images and two mostly histograms (one of each style), styles mixed, three resumed. */
export function mediaPlan(runs: number): MediaRunPlan[] {
  const plans: MediaRunPlan[] = [];
  for (let r = 0; r < runs; r++)
    plans.push({
      name: `run_${String(r).padStart(2, '0')}`,
      style: r % 2 === 0 || r % 8 === 7 ? 'pytorch' : 'tf2',
      mix: r % 4 === 3 ? 'histograms' : 'images',
      files: r % 3 === 1 ? 2 : 1,
    });
  return plans;
}

/** Writes the whole folder into `dir` (which must exist and be empty). */
export function writeMediaFolder(dir: string, o: MediaFolderOptions): MediaFolder {
  const plans = mediaPlan(o.runs ?? 8);
  const w = new MediaFolderWriter(dir);
  plans.forEach((p, r) => w.writeRun(r, p, o.totalBytes / plans.length));
  return w.folder;
}
