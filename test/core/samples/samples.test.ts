// Sample sources: completions JSONL told from metric JSONL, read live and bounded; W&B tables against Python's json; the text adapter; paging, sort, search.

import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { samplePage, sampleSources } from '../../../src/core/app/run-samples';
import { CompletionsReader } from '../../../src/core/samples/completions';
import { SampleStore } from '../../../src/core/samples/sample-store';
import { itemsTable, textSamples } from '../../../src/core/samples/text-samples';
import { readSource } from '../../../src/core/sources/registry';
import { classifyFile } from '../../../src/core/sources/sniff';
import { TextStore } from '../../../src/core/tfevents/text-store';
import { SAMPLE_CELL_CHARS, SAMPLE_PAGE_CHARS, type SampleSource } from '../../../src/shared/samples';
import { HOSTILE, writeCompletionsJsonl, writeWandbTables } from '../../helpers/samples-fixtures';
import { frameLog, rec } from '../wandb/wandb-log-writer';

const tmp = mkdtempSync(join(tmpdir(), 'rlwatch-samples-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const FIXTURES = join(__dirname, '../../fixtures');

function put(name: string, text: string): string {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
}

describe('JSONL detection: metrics vs completions', () => {
  test('the corpus metric JSONL files stay metrics, also under names that do not say so', async () => {
    const dir = join(FIXTURES, 'progress/epistoteles__dreamer-goal-conditioned');
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.jsonl'))) {
      expect(await classifyFile(join(dir, f), f)).toBe('jsonl');
      const renamed = join(tmp, `renamed-${f.replace(/^metrics/, 'log')}`);
      copyFileSync(join(dir, f), renamed);
      expect(await classifyFile(renamed, basename(renamed)), f).toBe('jsonl');
    }
    // A system monitor's JSONL (no step, no text) is neither.
    expect(await classifyFile(join(FIXTURES, 'apple/macmon-pipe.jsonl'), 'macmon-pipe.jsonl')).toBe(null);
  });

  test('prompt/completion text makes completions, whatever the name; numbers only make metrics', async () => {
    const trl = put(
      'log-a.jsonl',
      JSON.stringify({ step: 1, prompt: 'hi', completion: 'there', reward: 1 }) + '\n',
    );
    expect(await classifyFile(trl, 'log-a.jsonl')).toBe('completions');
    // verl's rollout dumps ({step}.jsonl): input, output, score, step.
    const verl = put('10.jsonl', JSON.stringify({ input: 'q', output: 'a', score: 0.5, step: 10 }) + '\n');
    expect(await classifyFile(verl, '10.jsonl')).toBe('completions');
    const metrics = put('log-b.jsonl', JSON.stringify({ step: 1, loss: 0.5, mode: 'train' }) + '\n');
    expect(await classifyFile(metrics, 'log-b.jsonl')).toBe('jsonl');
    // A long string under any key is sample text; the second object may be the first sample.
    const long = put(
      'log-c.jsonl',
      [
        { step: 0, loss: 1 },
        { step: 1, note: 'x'.repeat(300), score: 2 },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n') + '\n',
    );
    expect(await classifyFile(long, 'log-c.jsonl')).toBe('completions');
    // Named like samples, text-free objects without a step are still samples; named otherwise, not ours.
    const named = put('rollouts-3.jsonl', JSON.stringify({ id: 3, ok: true }) + '\n');
    expect(await classifyFile(named, 'rollouts-3.jsonl')).toBe('completions');
    const other = put('other.jsonl', JSON.stringify({ id: 3, ok: true }) + '\n');
    expect(await classifyFile(other, 'other.jsonl')).toBe(null);
    // A dataset (text without a step) is not a run's samples.
    const dataset = put('train.jsonl', JSON.stringify({ text: 'a document', id: 1 }) + '\n');
    expect(await classifyFile(dataset, 'train.jsonl')).toBe(null);
    // metrics*.jsonl is settled by name.
    expect(await classifyFile(trl, 'metrics.jsonl')).toBe('jsonl');
    // A first sample longer than the sniffed head still shows its keys.
    const cut = put('big.jsonl', JSON.stringify({ step: 1, completion: 'y'.repeat(200_000) }) + '\n');
    expect(await classifyFile(cut, 'big.jsonl')).toBe('completions');
  });
});

describe('completions JSONL reader', () => {
  test('every line a sample at its step; columns typed; a cell past 1 M characters is cut and flagged', async () => {
    const fx = writeCompletionsJsonl(join(tmp, 'trl'), 50);
    const r = await readSource(fx.file, 'completions');
    expect(r.errors).toEqual([]);
    const s = r.samples!;
    expect(s.count).toBe(8 + 8 + 50);
    expect(s.sources()).toEqual([
      {
        source: 'completions.jsonl',
        origin: 'jsonl',
        rows: 66,
        dropped: 0,
        steps: [
          { step: 10, rows: 8 },
          { step: 20, rows: 8 },
          { step: 30, rows: 50 },
        ],
      },
    ]);
    const t = s.table('completions.jsonl', 20)!;
    expect(t.columns).toEqual([
      { name: 'step', kind: 'number' },
      { name: 'prompt', kind: 'text' },
      { name: 'completion', kind: 'text' },
      { name: 'rewards/correctness_reward', kind: 'number' },
      { name: 'rewards/format_reward', kind: 'number' },
      { name: 'reward', kind: 'number' },
      { name: 'advantage', kind: 'number' },
    ]);
    const huge = t.rows.find((row) => row.cells[1] === 'hostile huge')!;
    expect(huge.truncated).toBe(true);
    expect((huge.cells[2] as string).length).toBe(SAMPLE_CELL_CHARS);
    const html = t.rows.find((row) => row.cells[1] === 'hostile html')!;
    expect(html.cells[2]).toBe(HOSTILE.html);
    expect(html.truncated).toBe(false);
  });

  test('reads appended lines live; a half-written line waits; a bad line is a typed error', async () => {
    const file = put(
      'live-completions.jsonl',
      JSON.stringify({ step: 1, prompt: 'a', completion: 'b' }) + '\n',
    );
    const reader = new CompletionsReader(file);
    await reader.readMore();
    expect(reader.samples.count).toBe(1);
    appendFileSync(
      file,
      JSON.stringify({ step: 2, prompt: 'c', completion: 'd', extra: 5 }) + '\n{"step": 2, "pro',
    );
    await reader.readMore();
    expect(reader.samples.count).toBe(2);
    expect(reader.result().errors).toEqual([]);
    appendFileSync(file, 'mpt": "e", "completion": ["x", "y"]}\nnot json\n');
    await reader.readMore();
    expect(reader.samples.count).toBe(3);
    const t = reader.samples.table('live-completions.jsonl', 2)!;
    expect(t.rows.map((r) => r.cells)).toEqual([
      [2, 'c', 'd', 5],
      [2, 'e', '["x","y"]'],
    ]);
    expect(t.columns.map((c) => c.kind)).toEqual(['number', 'text', 'text', 'number']);
    expect(reader.result().errors).toMatchObject([{ kind: 'decode' }]);
  });

  test('past the source budget, the oldest steps make room for the newest (counted as dropped)', () => {
    const store = new SampleStore({ sourceChars: 100, cellChars: 50 });
    expect(store.add('s', 'jsonl', 1, [['t', 'x'.repeat(40)]])).toBe(true);
    expect(store.add('s', 'jsonl', 1, [['t', 'y'.repeat(80)]])).toBe(true); // cut to 50 characters
    expect(store.table('s', 1)!.rows[1]).toEqual({ cells: ['y'.repeat(50)], truncated: true });
    // Step 2 does not fit beside step 1's 90 characters: step 1 goes.
    expect(store.add('s', 'jsonl', 2, [['t', 'z'.repeat(20)]])).toBe(true);
    expect(store.table('s', 1)).toBe(null);
    expect(store.count).toBe(1);
    expect(store.dropped).toBe(2);
    expect(store.sources()[0]).toMatchObject({ rows: 1, dropped: 2, steps: [{ step: 2, rows: 1 }] });
    // Within one step nothing older can go: past the budget its samples are dropped.
    for (let i = 0; i < 4; i++) store.add('s', 'jsonl', 2, [['t', 'w'.repeat(20)]]);
    expect(store.add('s', 'jsonl', 2, [['t', 'v'.repeat(20)]])).toBe(false);
    expect(store.count).toBe(5);
    expect(store.dropped).toBe(3);
  });

  test("one source filling the reader's budget makes room for another's newest samples, not keeps them out", () => {
    const store = new SampleStore({ sourceChars: 100, cellChars: 50 });
    for (let step = 1; step <= 5; step++) store.add('a', 'wandb', step, [['t', 'a'.repeat(20)]]);
    expect(store.chars).toBe(100);
    // Source b's first sample fits by letting a's two oldest steps go; its next by letting its own oldest go first.
    expect(store.add('b', 'wandb', 1, [['t', 'b'.repeat(30)]])).toBe(true);
    expect(store.add('b', 'wandb', 2, [['t', 'b'.repeat(30)]])).toBe(true);
    expect(store.sources().map((x) => [x.source, x.steps.map((t) => t.step), x.dropped])).toEqual([
      ['a', [3, 4, 5], 2],
      ['b', [2], 1],
    ]);
    expect(store.chars).toBe(90);
    expect(store.dropped).toBe(3);
  });
});

describe('W&B tables', () => {
  test('history table-file references are read into samples, exactly as Python json reads the files', async () => {
    const fx = writeWandbTables(join(tmp, 'wandb'), [5, 10, 15]);
    const r = await readSource(join(fx.dir, 'run-smp00001.wandb'), 'wandb');
    expect(r.errors).toEqual([]);
    expect(r.series.get('train/loss')?.length).toBe(3);
    const s = r.samples!;
    expect(s.sources().map((x) => [x.source, x.steps])).toEqual([
      [
        'completions',
        [
          { step: 5, rows: 7 },
          { step: 10, rows: 7 },
          { step: 15, rows: 7 },
        ],
      ],
    ]);
    for (const [step, path] of fx.tables) {
      const py = JSON.parse(
        execFileSync('python3', [
          '-c',
          'import json,sys; t=json.load(open(sys.argv[1], encoding="utf-8")); print(json.dumps({"columns": t["columns"], "data": t["data"]}))',
          path,
        ]).toString(),
      ) as { columns: string[]; data: unknown[][] };
      const t = s.table('completions', step)!;
      expect(t.columns.map((c) => c.name)).toEqual(py.columns);
      expect(t.rows.map((row) => row.cells)).toEqual(py.data);
      expect(t.columns.map((c) => c.kind)).toEqual(['text', 'text', 'text', 'number', 'number']);
    }
  });

  test('a missing table file waits while the run is live and is dropped (typed error) when it is done; paths stay under files/', async () => {
    const fx = writeWandbTables(join(tmp, 'wandb-missing'), [5]);
    const path = fx.tables.get(5)!;
    const body = execFileSync('cat', [path]);
    rmSync(path);
    const { WandbReader } = await import('../../../src/core/wandb/wandb-reader');
    const live = new WandbReader(join(fx.dir, 'run-smp00001.wandb'));
    await live.readMore();
    expect(live.result().samples!.count).toBe(0);
    writeFileSync(path, body);
    await live.readMore();
    expect(live.result().samples!.count).toBe(7);
    rmSync(path);
    const done = await readSource(join(fx.dir, 'run-smp00001.wandb'), 'wandb');
    expect(done.samples!.dropped).toBe(7);
    expect(done.errors).toMatchObject([{ kind: 'io' }]);

    // A reference out of files/ (`..`, absolute) is never read: its rows count as dropped.
    const outside = join(tmp, 'wandb-outside');
    mkdirSync(join(outside, 'files'), { recursive: true });
    writeFileSync(join(tmp, 'secret.table.json'), JSON.stringify({ columns: ['a'], data: [['secret']] }));
    writeFileSync(
      join(outside, 'run-x.wandb'),
      frameLog([
        rec.history([
          ['_step', '1'],
          ['t', JSON.stringify({ _type: 'table-file', path: '../../secret.table.json', nrows: 1 })],
          ['u', JSON.stringify({ _type: 'table-file', path: join(tmp, 'secret.table.json'), nrows: 1 })],
        ]),
      ]),
    );
    const refused = await readSource(join(outside, 'run-x.wandb'), 'wandb');
    expect(refused.samples!.count).toBe(0);
    expect(refused.samples!.dropped).toBe(2);
  });
});

describe('TensorBoard text as samples', () => {
  const item = (step: number, cells: string[], shape: number[], truncated = false) => ({
    tag: 't',
    step,
    wallTime: 1,
    cells,
    shape,
    truncated,
  });

  test('a scalar or list is one text column; a [rows, columns] table keeps its columns', () => {
    expect(itemsTable([item(1, ['one'], []), item(1, ['a', 'b'], [2])])).toEqual({
      columns: [{ name: 'text', kind: 'text' }],
      rows: [
        { cells: ['one'], truncated: false },
        { cells: ['a'], truncated: false },
        { cells: ['b'], truncated: false },
      ],
    });
    expect(itemsTable([item(1, ['p', 'v', 'lr', '0.1'], [2, 2], true)])).toEqual({
      columns: [
        { name: 'column 1', kind: 'text' },
        { name: 'column 2', kind: 'text' },
      ],
      rows: [
        { cells: ['p', 'v'], truncated: false },
        { cells: ['lr', '0.1'], truncated: true },
      ],
    });
  });

  test('a text store seen as samples: sources per tag, steps counted in rows', () => {
    const store = new TextStore();
    store.add(item(1, ['a', 'b', 'c', 'd'], [2, 2]), 4);
    store.add(item(2, ['e'], []), 1);
    const s = textSamples(store);
    expect(s.count).toBe(3);
    expect(s.sources()).toEqual([
      {
        source: 't',
        origin: 'text',
        rows: 3,
        dropped: 0,
        steps: [
          { step: 1, rows: 2 },
          { step: 2, rows: 1 },
        ],
      },
    ]);
    expect(s.table('t', 3)).toBe(null);
  });
});

describe('samples pages', () => {
  function sources(): SampleSource[] {
    const a = new SampleStore();
    const b = new SampleStore();
    for (let i = 0; i < 2500; i++)
      a.add('c', 'jsonl', 7, [
        ['completion', i % 10 === 0 ? `needle ${i}` : 'x'.repeat(i % 37)],
        ['reward', (i * 7919) % 1000],
      ]);
    // Another file of the run with the same source name: its rows join the step, its new column too.
    b.add('c', 'jsonl', 7, [
      ['completion', 'from b'],
      ['advantage', -1],
    ]);
    return [a, b];
  }

  test('a page of long texts holds as many rows as fit SAMPLE_PAGE_CHARS (one at least); stepping by its rows reads each once', () => {
    const store = new SampleStore();
    const lengths = [300_000, 900_000, 1_500_000, 10, 2_000_000, 700_000, 700_000, 700_000, 5];
    lengths.forEach((n, i) =>
      store.add('long', 'jsonl', 1, [
        ['completion', String.fromCharCode(97 + i).repeat(n)],
        ['reward', i],
      ]),
    );
    const seen: number[] = [];
    const sizes: number[] = [];
    for (let offset = 0; offset < lengths.length; ) {
      const p = samplePage('r', 'long', 1, [store], { offset, limit: 100 });
      const chars = p.rows.reduce((n, r) => n + String(r[0]).length, 0);
      expect(p.rows.length).toBeGreaterThan(0);
      if (p.rows.length > 1) expect(chars).toBeLessThanOrEqual(SAMPLE_PAGE_CHARS);
      seen.push(...p.index);
      sizes.push(p.rows.length);
      offset += p.rows.length;
    }
    expect(seen).toEqual(lengths.map((_, i) => i));
    // Cells are kept up to SAMPLE_CELL_CHARS (1 Mi): 0.3M + 0.9M fit, not + 1 Mi; 1 Mi + 10 fit, not + 1 Mi;
    // 1 Mi + 0.7M fit, not + 0.7M; 0.7M + 0.7M + 5 fit.
    expect(sizes).toEqual([2, 2, 2, 3]);
    // One text over the budget alone: a page of it.
    const big = new SampleStore({ sourceChars: 64 * 2 ** 20, cellChars: 3 * 2 ** 20 });
    for (let i = 0; i < 3; i++) big.add('big', 'jsonl', 1, [['completion', 'z'.repeat(2_500_000)]]);
    expect(samplePage('r', 'big', 1, [big], { limit: 100 }).rows.length).toBe(1);
  });

  test('list merges sources; a page is at most 1000 rows at its offset; sort by value and by length; search', () => {
    const src = sources();
    expect(sampleSources(src)).toEqual([
      { source: 'c', origin: 'jsonl', rows: 2501, dropped: 0, steps: [{ step: 7, rows: 2501 }] },
    ]);
    const p = samplePage('r', 'c', 7, src, { offset: 2000, limit: 1000 });
    expect(p.total).toBe(2501);
    expect(p.matched).toBe(2501);
    expect(p.rows.length).toBe(501);
    expect(p.columns.map((c) => c.name)).toEqual(['completion', 'reward', 'advantage']);
    expect(p.rows[500]).toEqual(['from b', null, -1]);
    expect(p.index[500]).toBe(2500);

    const byReward = samplePage('r', 'c', 7, src, { sort: { column: 'reward', desc: true }, limit: 3 });
    const rewards = Array.from({ length: 2500 }, (_, i) => (i * 7919) % 1000).sort((x, y) => y - x);
    expect(byReward.rows.map((r) => r[1])).toEqual(rewards.slice(0, 3));
    // Equal keys keep the logged order (a stable sort: pages do not reshuffle between requests).
    const ties = byReward.index.slice(0, 3);
    expect(ties.filter((_, k) => byReward.rows[k]![1] === byReward.rows[0]![1])).toEqual(
      [...ties.filter((_, k) => byReward.rows[k]![1] === byReward.rows[0]![1])].sort((x, y) => x - y),
    );
    const all = samplePage('r', 'c', 7, src, { sort: { column: 'reward' }, limit: 1000, offset: 2000 });
    expect(all.rows[all.rows.length - 1]).toEqual(['from b', null, -1]); // nulls last

    const byLength = samplePage('r', 'c', 7, src, {
      sort: { column: 'completion', by: 'length', desc: true },
      limit: 1,
    });
    expect((byLength.rows[0]![0] as string).length).toBe(36);

    const found = samplePage('r', 'c', 7, src, { search: 'NEEDLE 12', limit: 1000 });
    expect(found.matched).toBe(11); // 120, 1200…1290
    expect(found.rows.every((r) => String(r[0]).startsWith('needle 12'))).toBe(true);
    const rewardHist = found.histograms.find((h) => h.column === 'reward')!;
    expect(rewardHist.measure).toBe('value');
    expect(rewardHist.counts.reduce((a, b) => a + b, 0)).toBe(11);
    const lengthHist = found.histograms.find((h) => h.column === 'completion')!;
    expect(lengthHist).toMatchObject({ measure: 'length', min: 10, max: 11 }); // 'needle 120', 'needle 1200'…
    expect(lengthHist.counts[0]).toBe(1);
    expect(lengthHist.counts[lengthHist.counts.length - 1]).toBe(10);
  });

  test('an unknown source is not found; an unknown sort column is a bad request', () => {
    expect(() => samplePage('r', 'nope', 7, sources())).toThrow(/no samples/);
    expect(() => samplePage('r', 'c', 7, sources(), { sort: { column: 'zzz' } })).toThrow(/no column/);
  });
});
