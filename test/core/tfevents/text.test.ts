// TensorBoard text summaries: every (tag, step, text) against an independent reader, the config they carry, hostile text.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { formatReport } from '../../../src/cli/inspect-command';
import { inspectPath } from '../../../src/core/inspect';
import { EventStream, readEventFile } from '../../../src/core/tfevents';
import { packRead, unpackRead } from '../../../src/core/tfevents/read-message';
import { configFromTexts, jsonObjectText, markdownParamTable } from '../../../src/core/tfevents/text-config';
import { TextStore } from '../../../src/core/tfevents/text-store';
import {
  encodeFileVersionEvent,
  encodeScalarEvent,
  encodeTextEvent,
  frameRecord,
  type TextValue,
} from '../../../src/core/tfevents/writer';
import { textPage, textTags } from '../../../src/core/app/run-texts';

const FIXTURES = join(__dirname, '../../fixtures/tfevents-text');
const ORACLE = join(__dirname, 'text_oracle.py');
const tmp = mkdtempSync(join(tmpdir(), 'rlwatch-text-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface OracleText {
  tag: string;
  step: number;
  wallTime: number;
  shape: number[];
  cells: string[];
}
interface OracleFile {
  texts: OracleText[];
  hparams: Record<string, unknown> | null;
}

function oracle(files: string[]): Record<string, OracleFile> {
  return JSON.parse(
    execFileSync('python3', [ORACLE, ...files], { maxBuffer: 64 << 20 }).toString(),
  ) as Record<string, OracleFile>;
}

function eventFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...eventFiles(p));
    else if (name.startsWith('events.out.tfevents')) out.push(p);
  }
  return out;
}

/** Every text item a read kept, in file order per tag, as the oracle lists them. */
function itemsOf(store: TextStore): OracleText[] {
  return store
    .tags()
    .flatMap((t) => store.items(t.tag))
    .map(({ tag, step, wallTime, shape, cells }) => ({ tag, step, wallTime, shape, cells }));
}

const byTagThenOrder = (list: OracleText[]): OracleText[] =>
  [...list].sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));

function writeEvents(name: string, payloads: Uint8Array[]): string {
  const path = join(tmp, name);
  writeFileSync(
    path,
    Buffer.concat([frameRecord(encodeFileVersionEvent(1000)), ...payloads.map(frameRecord)]),
  );
  return path;
}

const text = (step: number, ...values: TextValue[]): Uint8Array => encodeTextEvent(1000 + step, step, values);

describe('the fixtures from the real writers, against the independent reader', () => {
  const files = eventFiles(FIXTURES);
  const expected = oracle(files);

  test('there are fixtures, and every one holds text', () => {
    expect(files.map((f) => relative(FIXTURES, f).split('/')[0])).toEqual([
      'hf-trainer',
      'med-alex__turkic_qa',
      'med-alex__turkic_qa',
      'tensorboard-shapes',
      'tensorboardx-add-text',
      'torch-cleanrl-sb3',
    ]);
    for (const f of files) expect(expected[f]!.texts.length, f).toBeGreaterThan(0);
  });

  test.each(files.map((f) => [relative(FIXTURES, f), f]))(
    '%s: every (tag, step, wall time, shape, text) as the oracle reads it, no error',
    (_, file) => {
      const r = readEventFile(file);
      // One real run was cut off inside its model_config record: its args are there, the rest is `truncated`.
      expect(r.errors.map((e) => e.kind)).toEqual(file.includes('small_lr_model') ? ['truncated'] : []);
      expect(r.skippedValues).toBe(0);
      expect(r.texts.dropped).toBe(0);
      expect(itemsOf(r.texts)).toEqual(byTagThenOrder(expected[file]!.texts));
      for (const t of r.texts.tags()) expect(r.texts.items(t.tag).every((i) => !i.truncated)).toBe(true);
    },
  );

  test('the shapes as TensorBoard renders them: a 0-d string, a list, tables of rows', () => {
    const [file] = eventFiles(join(FIXTURES, 'tensorboard-shapes'));
    const r = readEventFile(file!);
    expect(r.texts.items('scalar_text')[0]).toMatchObject({ shape: [], cells: ['a 0-d string tensor'] });
    expect(r.texts.items('vector_text')[0]).toMatchObject({
      shape: [3],
      cells: ['first', 'second', 'third'],
    });
    expect(r.texts.items('table_text').map((i) => i.shape)).toEqual([
      [3, 3],
      [2, 3],
    ]);
    expect(r.texts.items('table_text', 3)[0]!.cells).toEqual([
      'prompt',
      'completion',
      'reward',
      '3+3?',
      '7',
      '0.0',
    ]);
  });

  test('HF Trainer: args over model config, flat, exactly the JSON the oracle reads', () => {
    const [file] = eventFiles(join(FIXTURES, 'hf-trainer'));
    const want = expected[file!]!.texts;
    const args = JSON.parse(want.find((t) => t.tag === 'args/text_summary')!.cells[0]!) as object;
    const model = JSON.parse(want.find((t) => t.tag === 'model_config/text_summary')!.cells[0]!) as object;
    const r = readEventFile(file!);
    expect(r.config).toEqual({ ...model, ...args });
    expect(r.config).toMatchObject({
      learning_rate: 0.001,
      max_steps: 4,
      per_device_train_batch_size: 4,
      seed: 42,
      model_type: 'gpt2',
      n_embd: 8,
    });
    // Both scalars and texts: the scalars read as before.
    expect([...r.series.entries()].map(([tag]) => tag)).toContain('train/loss');
  });

  test('a real HF run (med-alex/turkic_qa): its TrainingArguments and XLM-R config; a cut run keeps its args', () => {
    const [cut, whole] = eventFiles(join(FIXTURES, 'med-alex__turkic_qa')).sort((a, b) =>
      a.includes('small_lr') ? -1 : b.includes('small_lr') ? 1 : 0,
    );
    const w = readEventFile(whole!);
    const want = expected[whole!]!.texts;
    const args = JSON.parse(want.find((t) => t.tag === 'args/text_summary')!.cells[0]!) as object;
    const model = JSON.parse(want.find((t) => t.tag === 'model_config/text_summary')!.cells[0]!) as object;
    expect(w.config).toEqual({ ...model, ...args });
    expect(w.config).toMatchObject({ _name_or_path: 'FacebookAI/xlm-roberta-base', do_train: true });
    const c = readEventFile(cut!);
    expect(c.texts.tags().map((t) => t.tag)).toEqual(['args/text_summary']);
    expect(c.config).toMatchObject({ per_device_train_batch_size: 32, do_train: true });
  });

  test("CleanRL's table and SB3's hparams become config values of their types", () => {
    const [file] = eventFiles(join(FIXTURES, 'torch-cleanrl-sb3'));
    const r = readEventFile(file!);
    const hparams = expected[file!]!.hparams;
    expect(hparams).toEqual({ algorithm: 'PPO', 'learning rate': 0.0003, gamma: 0.99, use_sde: 0 });
    expect(r.config).toEqual({
      ...hparams,
      exp_name: 'ppo',
      seed: 1,
      torch_deterministic: true,
      learning_rate: 0.00025,
      num_envs: 4,
      gamma: 0.99,
      target_kl: null,
      env_id: 'CartPole-v1',
    });
  });

  test('a file with no config text has no config; escapes and HTML stay text, byte for byte', () => {
    const [file] = eventFiles(join(FIXTURES, 'tensorboardx-add-text'));
    const r = readEventFile(file!);
    expect(r.config).toBe(null);
    expect(r.texts.items('samples/completion/text_summary', 2)[0]!.cells).toEqual([
      "<script>alert('x')</script><b>html</b> & \x1b[31mred\x1b[0m \u202eevil",
    ]);
  });

  test('inspect counts each source’s texts and shows the HF config; a worker read keeps texts and config', async () => {
    const report = await inspectPath(FIXTURES);
    const counts = Object.fromEntries(report.runs.map((run) => [run.run, run.sources.map((s) => s.texts)]));
    expect(counts).toEqual({
      'hf-trainer/runs/Nov26_17-52-14_vm': [2],
      'med-alex__turkic_qa/en_kaz_test_base_model/runs/May01_16-30-52_ml-machine': [2],
      'med-alex__turkic_qa/en_kaz_test_large_batch_with_small_lr_model/runs/Apr29_13-20-36_ml-machine': [1],
      'tensorboard-shapes': [4],
      'tensorboardx-add-text': [4],
      'torch-cleanrl-sb3': [1],
    });
    const hf = report.runs.find((run) => run.run.startsWith('hf-trainer'))!;
    expect(hf.config).toMatchObject({ learning_rate: 0.001, model_type: 'gpt2' });
    const lines = formatReport(report).split('\n');
    expect(lines.filter((l) => l.startsWith('  texts '))).toEqual([
      '  texts 2 item(s) (TensorBoard text summaries)',
      '  texts 2 item(s) (TensorBoard text summaries)',
      '  texts 1 item(s) (TensorBoard text summaries)',
      '  texts 4 item(s) (TensorBoard text summaries)',
      '  texts 4 item(s) (TensorBoard text summaries)',
      '  texts 1 item(s) (TensorBoard text summaries)',
    ]);
    for (const f of files) {
      const direct = readEventFile(f);
      const moved = unpackRead(structuredClone(packRead(1, direct).read));
      expect(itemsOf(moved.texts)).toEqual(itemsOf(direct.texts));
      expect(moved.config).toEqual(direct.config);
    }
  });
});

describe('hostile text: bounded results or typed errors, never a throw', () => {
  test('invalid UTF-8 decodes with U+FFFD exactly as Python does; escapes, HTML and NUL stay as written', () => {
    const bad = [
      new Uint8Array([0x61, 0xff, 0x62]),
      new Uint8Array([0xe2, 0x82]), // a cut 3-byte sequence
      new Uint8Array([0xed, 0xa0, 0x80]), // a UTF-16 surrogate, invalid in UTF-8
      new Uint8Array([0xf0, 0x9f, 0x9a, 0x80, 0xc0, 0xaf]),
    ];
    const file = writeEvents('utf8.tfevents', [
      text(1, { tag: 'bad', cells: bad, shape: [4] }),
      text(2, { tag: 'markup', cells: ['\x00\x1b]0;title\x07<img src=x onerror=alert(1)>'] }),
    ]);
    const r = readEventFile(file);
    expect(r.errors).toEqual([]);
    expect(itemsOf(r.texts)).toEqual(byTagThenOrder(oracle([file])[file]!.texts));
    expect(r.texts.items('bad')[0]!.cells[0]).toBe('a\ufffdb');
  });

  test('a string past 1 MB is cut to 1 MB and says so; past the source budget items are counted, not kept', () => {
    const big = 'x'.repeat((1 << 20) + 4096);
    const payloads: Uint8Array[] = [];
    for (let i = 0; i < 20; i++) payloads.push(text(i, { tag: 'big', cells: [big] }));
    const r = readEventFile(writeEvents('big.tfevents', payloads));
    expect(r.errors).toEqual([]);
    const kept = r.texts.items('big');
    expect(kept[0]!.cells[0]!.length).toBe(1 << 20);
    expect(kept.every((i) => i.truncated)).toBe(true);
    // 16 MB of 1 MB items: 16 kept, the rest dropped and counted.
    expect(kept.length).toBe(16);
    expect(r.texts.dropped).toBe(4);
    expect(r.texts.bytes).toBe(16 << 20);
  });

  test('a huge shape claim repeats the last cell only up to the caps; impossible shapes are skipped values', () => {
    const file = writeEvents('shapes.tfevents', [
      text(1, { tag: 'huge', cells: ['a', 'b'], shape: [2 ** 40] }),
      text(2, { tag: 'neg', cells: ['a'], shape: [-1] }),
      text(3, { tag: 'deep', cells: ['a'], shape: new Array<number>(40).fill(1) }),
      text(4, { tag: 'more', cells: ['a', 'b', 'c'], shape: [2] }),
      text(5, { tag: 'empty', cells: [], shape: [0] }),
      text(6, { tag: 'pad', cells: ['p'], shape: [2, 2] }),
    ]);
    const r = readEventFile(file);
    expect(r.errors).toEqual([]);
    const huge = r.texts.items('huge')[0]!;
    expect(huge.shape).toEqual([2 ** 40]);
    expect(huge.truncated).toBe(true);
    expect(huge.cells.length).toBe(65536);
    expect(huge.cells.slice(0, 3)).toEqual(['a', 'b', 'b']);
    expect(r.texts.items('pad')[0]).toMatchObject({ cells: ['p', 'p', 'p', 'p'], truncated: false });
    expect(r.texts.items('empty')[0]).toMatchObject({ cells: [], shape: [0] });
    expect(r.texts.tags().map((t) => t.tag)).toEqual(['empty', 'huge', 'pad']);
    expect(r.skippedValues).toBe(3);
  });

  test('a text tensor cut short is a typed decode error storing nothing; a file cut mid-record is `truncated`', () => {
    const whole = text(1, { tag: 'cut', cells: ['hello world'] });
    // Shorten the string's length-delimited bytes inside an otherwise framed record.
    const broken = whole.slice(0, whole.length - 3);
    const file = writeEvents('broken.tfevents', [broken, text(2, { tag: 'ok', cells: ['fine'] })]);
    const r = readEventFile(file);
    expect(r.errors.map((e) => e.kind)).toEqual(['decode']);
    expect(r.texts.tags().map((t) => t.tag)).toEqual(['ok']);
    const bytes = readFileSync(file);
    const cutFile = join(tmp, 'cut.tfevents');
    writeFileSync(cutFile, bytes.subarray(0, bytes.length - 5));
    const cut = readEventFile(cutFile);
    expect(cut.errors.map((e) => e.kind)).toEqual(['decode', 'truncated']);
  });

  test('the plugin named on a tag’s first value only (as TF writes it) still marks later values as text', () => {
    const stream = new EventStream();
    stream.push(frameRecord(text(1, { tag: 't', cells: ['one'] })));
    stream.push(frameRecord(text(2, { tag: 't', cells: ['two'], withPluginName: false })));
    // Another tag without metadata is not text: it is not kept.
    stream.push(frameRecord(text(3, { tag: 'u', cells: ['?'], withPluginName: false })));
    const r = stream.result();
    expect(r.texts.items('t').map((i) => [i.step, i.cells[0]])).toEqual([
      [1, 'one'],
      [2, 'two'],
    ]);
    expect(r.texts.tags().map((t) => t.tag)).toEqual(['t']);
  });

  test('scalars in the same events read exactly as without the texts', () => {
    const scalars = (step: number): Uint8Array =>
      encodeScalarEvent(1000 + step, step, [{ tag: 'loss', value: step / 3 }], 'simple');
    const plain = readEventFile(writeEvents('plain.tfevents', [scalars(0), scalars(1), scalars(2)]));
    const mixed = readEventFile(
      writeEvents('mixed.tfevents', [
        scalars(0),
        text(1, { tag: 's', cells: ['x'] }),
        scalars(1),
        scalars(2),
      ]),
    );
    const cols = (r: typeof plain) => r.series.get('loss').columns();
    expect(Array.from(cols(mixed).values)).toEqual(Array.from(cols(plain).values));
    expect(Array.from(cols(mixed).steps)).toEqual(Array.from(cols(plain).steps));
    expect(mixed.texts.count).toBe(1);
  });
});

describe('fuzz: mutated text events', () => {
  test('5,000 text events with bytes flipped, cut or inserted: typed errors and bounded items, never a throw', () => {
    const base = text(1, { tag: 'samples', cells: ['héllo', 'wörld', '<b>x</b>'], shape: [3] });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(base.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
        fc.nat(base.length),
        fc.uint8Array({ maxLength: 12 }),
        (flips, cutAt, inserted) => {
          const bytes = base.slice();
          for (const [at, v] of flips) bytes[at] = v;
          const mutated = new Uint8Array([
            ...bytes.subarray(0, cutAt),
            ...inserted,
            ...bytes.subarray(cutAt),
          ]);
          const stream = new EventStream();
          stream.push(frameRecord(mutated));
          const r = stream.result();
          expect(r.errors.every((e) => e.kind === 'decode')).toBe(true);
          for (const t of r.texts.tags())
            for (const it of r.texts.items(t.tag)) {
              expect(it.cells.length).toBeLessThanOrEqual(65536);
              expect(it.cells.every((c) => typeof c === 'string')).toBe(true);
            }
        },
      ),
      { numRuns: 5000, seed: 2511 },
    );
  });
});

describe('config texts and the texts channels', () => {
  test('JSON in a code fence parses; a non-object, broken JSON or `__proto__` never sets a prototype', () => {
    expect(jsonObjectText('```json\n{"a": 1}\n```')).toEqual({ a: 1 });
    expect(jsonObjectText('[1, 2]')).toBe(null);
    expect(jsonObjectText('{"a": ')).toBe(null);
    const store = new TextStore();
    const item = (tag: string, cell: string) => ({
      tag,
      step: 0,
      wallTime: 0,
      cells: [cell],
      shape: [1],
      truncated: false,
    });
    store.add(item('args/text_summary', '{"__proto__": {"polluted": 1}, "lr": 0.1}'), 10);
    const config = configFromTexts(store, null)!;
    expect(Object.getPrototypeOf(config)).toBe(Object.prototype);
    expect(Object.keys(config).sort()).toEqual(['__proto__', 'lr']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(markdownParamTable('|param|value|\n|-|-|\n|a|1e-3|\n|b|x|y|')).toEqual({ a: 0.001, b: 'x|y' });
    expect(markdownParamTable('no table')).toBe(null);
  });

  test('texts.list merges sources; texts.get pages the newest items, one step, or answers not-found', () => {
    const a = new TextStore();
    const b = new TextStore();
    const item = (tag: string, step: number) => ({
      tag,
      step,
      wallTime: step,
      cells: [`${tag}@${step}`],
      shape: [1],
      truncated: false,
    });
    for (let s = 0; s < 5; s++) a.add(item('t', s), 4);
    b.add(item('t', 10), 4);
    b.add(item('u', 7), 4);
    expect(textTags([a, b])).toEqual([
      { tag: 't', count: 6, firstStep: 0, lastStep: 10 },
      { tag: 'u', count: 1, firstStep: 7, lastStep: 7 },
    ]);
    expect(textPage('r', 't', [a, b], undefined, 2).items.map((i) => i.step)).toEqual([4, 10]);
    expect(textPage('r', 't', [a, b], 3).items.map((i) => i.cells[0])).toEqual(['t@3']);
    expect(textPage('r', 't', [a, b], 99).items).toEqual([]);
    expect(() => textPage('r', 'nope', [a, b], undefined)).toThrow(/no texts tagged nope/);
  });
});
