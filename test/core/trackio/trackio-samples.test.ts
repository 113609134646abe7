// trackio tables, traces and histograms against an independent reader (Python's sqlite3 and json): each table key and
// trace key a sample source, histograms as buckets; typed errors for malformed values, bounds, inspect's counts.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { exportSamples } from '../../../src/cli/samples-export';
import { inspectPath } from '../../../src/core/inspect';
import { databaseRuns, readSource } from '../../../src/core/sources/registry';
import { TrackioReader } from '../../../src/core/trackio/trackio-reader';
import { sampleSourceListShape } from '../../../src/shared/remote-shapes';
import { SAMPLE_CELL_CHARS } from '../../../src/shared/samples';
import { tempDirs } from '../../helpers/temp-dirs';
import { TrackioDb, trackioHistogram, trackioTable, trackioTrace } from '../../helpers/tracker-dbs';

const tmp = tempDirs();

/**
 * Per run (run_id, else run_name): its samples per source and step ({columns: [name, kind] sorted, rows: cells by
 * column name, nulls left out, and whether a cell was cut}) and its histograms per tag ([step, wall, buckets]), by
 * rlwatch's documented rules: a `trackio.table` value's row dicts at the metrics row's step (media dicts as
 * `[image x.png]`, booleans and structures as JSON text), a `traces` row as `role: content` lines plus its metadata's
 * top-level scalars, a `trackio.histogram` as (left, right, count) triples.
 */
const REFERENCE = String.raw`
import json, math, sqlite3, sys
from datetime import datetime
con = sqlite3.connect('file:' + sys.argv[1] + '?immutable=1', uri=True)
CAP = int(sys.argv[2])
cols = [r[1] for r in con.execute('PRAGMA table_info(metrics)')]
key = 'run_id' if 'run_id' in cols else 'run_name'
tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
def text(v): return v.decode('utf-8') if isinstance(v, bytes) else v
def dumps(v): return json.dumps(v, separators=(',', ':'), ensure_ascii=False)
def media(v):
    if isinstance(v, dict) and str(v.get('_type', '')).startswith('trackio.') and isinstance(v.get('file_path'), str):
        return '[' + v['_type'][len('trackio.'):] + ' ' + v['file_path'].replace('\\', '/').split('/')[-1] + ']'
    return None
def cell(v):
    if v is None: return None
    if isinstance(v, bool): return 'true' if v else 'false'
    if isinstance(v, (int, float, str)): return v
    return dumps(v)
def table_cell(v):
    if media(v) is not None: return media(v)
    if isinstance(v, list) and v and all(media(x) is not None for x in v): return ' '.join(media(x) for x in v)
    return cell(v)
def content(c):
    if c is None: return ''
    if isinstance(c, str): return c
    if isinstance(c, list):
        return '\n'.join(p if isinstance(p, str) else p['text'] if isinstance(p, dict) and isinstance(p.get('text'), str)
                         else (media(p) or dumps(p)) for p in c)
    return media(c) or dumps(c)
runs, walls = {}, {}
def run(member):
    return runs.setdefault(member, {'samples': {}, 'histograms': {}})
def add(member, source, step, values, wall):
    at = walls.setdefault(member, {}).setdefault(source, {})
    at[str(step)] = max(at.get(str(step), wall), wall)
    steps = run(member)['samples'].setdefault(source, {})
    t = steps.setdefault(str(step), {'columns': {}, 'rows': []})
    row, truncated = {}, False
    for name, v in values:
        if isinstance(v, str) and len(v) > CAP: v, truncated = v[:CAP], True
        kind = 'number' if v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) else 'text'
        if t['columns'].get(name) != 'text': t['columns'][name] = kind
        if v is not None: row[name] = v
    t['rows'].append({'cells': row, 'truncated': truncated})
for member, ts, step, payload in con.execute(f'SELECT {key}, timestamp, step, metrics FROM metrics ORDER BY id'):
    run(member)
    for k, v in json.loads(text(payload)).items():
        if isinstance(v, dict) and v.get('_type') == 'trackio.table':
            for r in v['_value']: add(member, k, step, [(c, table_cell(x)) for c, x in r.items()], datetime.fromisoformat(ts).timestamp())
        if isinstance(v, dict) and v.get('_type') == 'trackio.histogram' and v['values']:
            b, n = v['bins'], v['values']
            buckets = [x for i in range(len(n)) for x in (b[i], b[i + 1], n[i])]
            run(member)['histograms'].setdefault(k, []).append([step, datetime.fromisoformat(ts).timestamp(), buckets])
if 'traces' in tables:
    for member, ts, step, k, messages, metadata in con.execute(f'SELECT {key}, timestamp, step, key, messages, metadata FROM traces ORDER BY rowid'):
        lines = []
        for m in json.loads(text(messages)):
            line = (m['role'] if isinstance(m.get('role'), str) else '?') + ': ' + content(m.get('content'))
            if m.get('tool_calls'): line += '\n[tool calls] ' + dumps(m['tool_calls'])
            lines.append(line)
        values = [('messages', '\n'.join(lines))]
        for mk, mv in json.loads(text(metadata)).items():
            if not isinstance(mv, (dict, list)): values.append(('metadata/messages' if mk == 'messages' else mk, cell(mv)))
        add(member, k, step, values, datetime.fromisoformat(ts).timestamp())
for r in runs.values():
    for steps in r['samples'].values():
        for t in steps.values(): t['columns'] = sorted([n, k] for n, k in t['columns'].items())
print(json.dumps({'runs': runs, 'walls': walls}))
`;

interface RefTable {
  columns: [string, string][];
  rows: { cells: Record<string, string | number>; truncated: boolean }[];
}
interface RefRun {
  samples: Record<string, Record<string, RefTable>>;
  histograms: Record<string, [number, number, number[]][]>;
}

/** Per run, source and step: the latest time a row of it was logged at (its metrics or traces row's timestamp). */
type RefWalls = Record<string, Record<string, Record<string, number>>>;

function reference(path: string): { runs: Record<string, RefRun>; walls: RefWalls } {
  return JSON.parse(
    execFileSync('python3', ['-c', REFERENCE, path, String(SAMPLE_CELL_CHARS)], {
      maxBuffer: 1 << 28,
    }).toString(),
  ) as { runs: Record<string, RefRun>; walls: RefWalls };
}

/** What rlwatch reads of each run's samples and histograms, in the reference's shape. */
async function ours(path: string): Promise<Record<string, RefRun>> {
  const out: Record<string, RefRun> = {};
  for (const { member } of databaseRuns(path, 'trackio')) {
    const r = await readSource(path, 'trackio', { member });
    expect(r.errors).toEqual([]);
    const samples: RefRun['samples'] = {};
    for (const s of r.samples!.sources()) {
      expect(s.origin).toBe('trackio');
      expect(s.dropped).toBe(0);
      const steps: Record<string, RefTable> = (samples[s.source] = {});
      for (const { step } of s.steps) {
        const t = r.samples!.table(s.source, step)!;
        steps[String(step)] = {
          columns: t.columns.map((c): [string, string] => [c.name, c.kind]).sort(),
          rows: t.rows.map((row) => ({
            cells: Object.fromEntries(
              row.cells.flatMap((c, i) => (c === null ? [] : [[t.columns[i]!.name, c]])),
            ),
            truncated: row.truncated,
          })),
        };
      }
    }
    const histograms: RefRun['histograms'] = {};
    const h = r.histogramSteps!;
    for (const { tag } of h.tags())
      histograms[tag] = h.steps(tag).map((s) => [s.step, s.wallTime, [...s.buckets]]);
    out[member] = { samples, histograms };
  }
  return out;
}

/** The per-step means the read charted (`samples/…` tags) of one run: tag → [step, wall, value]. */
async function chartedMeans(
  path: string,
  member: string,
): Promise<Record<string, [number, number, number][]>> {
  const r = await readSource(path, 'trackio', { member });
  const out: Record<string, [number, number, number][]> = {};
  for (const [tag, s] of r.series.entries())
    if (tag.startsWith('samples/'))
      out[tag] = Array.from({ length: s.length }, (_, i): [number, number, number] => [
        s.step(i),
        s.wallTime(i),
        s.value(i),
      ]);
  return out;
}

/** Per step of a reference source: its latest row time and the mean of `measure` over the rows that have it. */
function refMeans(
  steps: Record<string, RefTable>,
  walls: Record<string, number>,
  measure: (cells: RefTable['rows'][number]['cells']) => number | undefined,
): [number, number, number][] {
  return Object.entries(steps)
    .map(([step, t]): [number, number, number] => {
      const xs = t.rows.map((r) => measure(r.cells)).filter((x) => x !== undefined);
      return [Number(step), walls[step]!, xs.reduce((a, b) => a + b, 0) / xs.length];
    })
    .sort((a, b) => a[0] - b[0]);
}

const image = (name: string, caption?: string) => ({
  _type: 'trackio.image',
  file_path: `media/proj/run/0/${name}`,
  caption: caption ?? null,
});

/**
 * Two runs as TRL with trackio logs them: a `completions` table every 3 steps (hostile text, rewards with a NaN,
 * images, a list of images, nulls, booleans, a nested value), a column-less table, a histogram every 2 steps (one of no
 * data), traces every 4 steps (TRL's SFT trace example; a list of agent traces with content parts and tool calls).
 */
function writeProject(path: string, opts: { wal?: boolean; textJson?: boolean } = {}): TrackioDb {
  const db = new TrackioDb(path, opts);
  db.db.exec('BEGIN');
  const a = { id: 'r-a', name: 'grpo' };
  const b = { id: 'r-b', name: 'ppo' };
  const t0 = 1_745_000_000_123_456;
  for (let step = 0; step < 30; step++) {
    const at = t0 + step * 1_000_037;
    const m: Record<string, unknown> = { loss: 1 / (step + 1) };
    if (step % 3 === 0)
      m.completions = trackioTable(
        Array.from({ length: 4 }, (_, i) => ({
          step: String(step),
          prompt: `Solve ${step}·${i} — κ <b>bold</b> \u001b[31mred\u001b[0m`,
          completion: i === 1 ? '' : `The answer is ${step * i}.\n\tDone 🚀`,
          'rewards/accuracy': Math.sin(step + i) / 3,
          'rewards/format': i === 2 ? Number.NaN : i,
          advantage: (i - 1.5) / 7,
          image: i === 0 ? image(`${step}.png`, 'a cat') : null,
          images: i === 3 ? [image('a.png'), image('b.png')] : [],
          flag: i % 2 === 0,
          extra: i === 1 ? { nested: [1, 2, 'x'] } : null,
        })),
      );
    if (step === 6)
      m.raw = trackioTable([
        { '0': 1, '1': 'a' },
        { '0': 2, '1': 'b', '2': null },
      ]);
    if (step % 2 === 0)
      m['weights/fc1'] =
        step === 4
          ? trackioHistogram([], [])
          : trackioHistogram(
              Array.from({ length: 9 }, (_, i) => -1 + i * 0.25 + step / 1e3),
              Array.from({ length: 8 }, (_, i) => (i * 7 + step) % 11),
            );
    if (step % 4 === 1) {
      m.trace = trackioTrace(
        [
          { role: 'system', content: 'You are a supervised fine-tuning demo model.' },
          { role: 'user', content: `What is ${step} + 2?` },
          { role: 'assistant', content: `${step} + 2 = ${step + 2}. <script>alert(1)</script>` },
        ],
        {
          label: 'trl-run-0',
          trainer: 'trl-sft',
          loss: 2.5 / step,
          global_step: step,
          reference_completion: 'ok',
          done: step > 20,
          nested: { skipped: true },
          messages: 'metadata named messages',
        },
      );
      m.agent = [
        trackioTrace([
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Describe' },
              { type: 'image', ...image('in.png') },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{"x":1}' } }],
          },
          { role: 'tool', content: 'a dog' },
          { content: 'no role' },
        ]),
        trackioTrace([{ role: 'assistant', content: 'second trace' }], { score: step }),
        7, // a list's other items stay in the metrics row
      ];
    }
    db.log(a, step * 10, m, at);
    if (step < 5)
      db.log(
        b,
        step,
        {
          completions: trackioTable([{ prompt: 'p', completion: `c${step}`, reward: step }]),
          'actions/dist': trackioHistogram([0, 1, 2], [step, 5 - step]),
        },
        at + 5,
      );
  }
  db.db.exec('COMMIT');
  return db;
}

test("trackio tables, traces and histograms read exactly as Python reads them, in either journal mode and JSON's two storages", async () => {
  for (const opts of [{ wal: true }, { wal: false, textJson: true }]) {
    const path = join(tmp('rlwatch-trackio-samples-'), 'project.db');
    writeProject(path, opts).close();
    const { runs: ref, walls } = reference(path);
    const got = await ours(path);
    expect(Object.keys(got).sort()).toEqual(['r-a', 'r-b']);
    expect(got).toEqual(ref);
    // The data has what the comparison must cover.
    const a = got['r-a']!;
    expect(Object.keys(a.samples).sort()).toEqual(['agent', 'completions', 'raw', 'trace']);
    expect(Object.keys(a.samples.completions!)).toHaveLength(10);
    const c0 = a.samples.completions!['0']!;
    expect(c0.columns).toContainEqual(['rewards/accuracy', 'number']);
    expect(c0.columns).toContainEqual(['rewards/format', 'text']); // NaN, stored as "NaN"
    expect(c0.rows[0]!.cells.image).toBe('[image 0.png]');
    expect(c0.rows[3]!.cells.images).toBe('[image a.png] [image b.png]');
    expect(c0.rows[1]!.cells.extra).toBe('{"nested":[1,2,"x"]}');
    expect(a.samples.trace!['10']!.rows[0]!.cells).toMatchObject({
      messages:
        'system: You are a supervised fine-tuning demo model.\nuser: What is 1 + 2?\nassistant: 1 + 2 = 3. <script>alert(1)</script>',
      global_step: 1,
      'metadata/messages': 'metadata named messages',
    });
    expect(a.samples.trace!['10']!.rows[0]!.cells.nested).toBeUndefined();
    expect(a.samples.agent!['10']!.rows).toHaveLength(2);
    expect(a.samples.agent!['10']!.rows[0]!.cells.messages).toBe(
      'user: Describe\n[image in.png]\nassistant: \n[tool calls] [{"id":"c1","type":"function","function":{"name":"look","arguments":"{\\"x\\":1}"}}]\ntool: a dog\n?: no role',
    );
    expect(a.histograms['weights/fc1']).toHaveLength(14); // 15 logged, the one of no data left out
    expect(a.histograms['weights/fc1']![0]![2]).toHaveLength(24);
    expect(got['r-b']!.histograms['actions/dist']![1]).toEqual([1, expect.any(Number), [0, 1, 1, 1, 2, 4]]);
    // Tables' and traces' number columns charted as per-step means, as W&B tables' are: checked against the
    // reference's rows (a column holding a "NaN" at a step is not charted there; step-like columns never).
    const means = await chartedMeans(path, 'r-a');
    const src = (name: string) => [ref['r-a']!.samples[name]!, walls['r-a']![name]!] as const;
    const num = (c: string) => (cells: Record<string, string | number>) =>
      typeof cells[c] === 'number' ? (cells[c] as number) : undefined;
    expect(means['samples/completions/mean/rewards/accuracy']).toEqual(
      refMeans(...src('completions'), num('rewards/accuracy')),
    );
    expect(means['samples/completions/mean/advantage']).toEqual(
      refMeans(...src('completions'), num('advantage')),
    );
    expect(means['samples/completions/mean_chars/completion']).toEqual(
      refMeans(...src('completions'), (cells) => [...String(cells.completion ?? '')].length),
    );
    expect(means['samples/trace/mean/loss']).toEqual(refMeans(...src('trace'), num('loss')));
    expect(means['samples/agent/mean/score']).toEqual(refMeans(...src('agent'), num('score')));
    expect(means['samples/trace/mean/loss']![0]![1] % 1).not.toBe(0); // the rows' microsecond times
    expect(Object.keys(means).sort()).toEqual([
      'samples/agent/mean/score',
      'samples/completions/mean/advantage',
      'samples/completions/mean/rewards/accuracy',
      'samples/completions/mean_chars/completion',
      'samples/raw/mean/0',
      'samples/trace/mean/loss',
    ]);
  }
});

test("a trace's messages are kept to the cell cap: the rest is cut and the sample marked truncated", async () => {
  const path = join(tmp('rlwatch-trackio-big-trace-'), 'project.db');
  const db = new TrackioDb(path);
  const run = { id: 'r', name: 'big' };
  const long = 'x'.repeat(SAMPLE_CELL_CHARS / 4);
  const messages = Array.from({ length: 9 }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    content: long,
  }));
  db.log(run, 3, { t: trackioTrace(messages, { n: 9 }) }, 1.7e15);
  db.log(run, 4, { t: trackioTrace(messages.slice(0, 1)) }, 1.7e15 + 1);
  db.close();
  const got = await ours(path);
  expect(got).toEqual(reference(path).runs);
  const rows = got.r!.samples.t!;
  expect(rows['3']!.rows[0]!.truncated).toBe(true);
  expect((rows['3']!.rows[0]!.cells.messages as string).length).toBe(SAMPLE_CELL_CHARS);
  expect(rows['4']!.rows[0]!.truncated).toBe(false);
});

test('malformed tables, histograms and traces are decode errors at their row ids; the rest is read', async () => {
  const path = join(tmp('rlwatch-trackio-bad-samples-'), 'project.db');
  const db = new TrackioDb(path);
  const run = { id: 'r', name: 'bad' };
  const good = trackioTable([{ prompt: 'p', reward: 1 }]);
  db.log(run, 0, { loss: 1, completions: { _type: 'trackio.table', _value: 'rows' } }, 1.7e15);
  db.log(run, 1, { loss: 2, completions: { _type: 'trackio.table', _value: [{ a: 1 }, 2] } }, 1.7e15);
  db.log(run, 2, { loss: 3, h: trackioHistogram([0, 1, 2], [1, 2]), completions: good }, 1.7e15);
  db.log(run, 3, { h: { _type: 'trackio.histogram', bins: [0, 1], values: ['1'] } }, 1.7e15);
  db.log(run, 4, { h: trackioHistogram([0, 1], [3, 4]) }, 1.7e15);
  db.traceRaw(run, 5, 'trace', '[{"role": "user"', '{}');
  db.traceRaw(run, 6, 'trace', '{"role": "user"}', '{}');
  db.traceRaw(run, 7, 'trace', '[]', '[1]');
  db.log(run, 8, { trace: trackioTrace([{ role: 'user', content: 'fine' }]) }, 1.7e15);
  db.close();
  const r = await readSource(path, 'trackio', { member: 'r' });
  expect(r.errors).toEqual([
    {
      kind: 'decode',
      offset: 1,
      message: 'trackio metrics row 1: table completions: "_value" is not a list of rows',
    },
    {
      kind: 'decode',
      offset: 2,
      message: 'trackio metrics row 2: table completions: a row is not an object',
    },
    {
      kind: 'decode',
      offset: 4,
      message: 'trackio metrics row 4: histogram h: not k + 1 numeric "bins" edges over k numeric "values"',
    },
    {
      kind: 'decode',
      offset: 5,
      message: 'trackio metrics row 5: histogram h: not k + 1 numeric "bins" edges over k numeric "values"',
    },
    { kind: 'decode', offset: 1, message: 'trackio traces row 1: messages is not JSON' },
    { kind: 'decode', offset: 2, message: 'trackio traces row 2: messages is not a list' },
    { kind: 'decode', offset: 3, message: 'trackio traces row 3: metadata is not an object' },
  ]);
  expect([...r.series.get('loss').values()]).toEqual([1, 2, 3]);
  expect(r.samples!.sources().map((s) => [s.source, s.rows, s.steps.map((x) => x.step)])).toEqual([
    ['completions', 1, [2]],
    ['trace', 1, [8]],
  ]);
  expect(r.histogramSteps!.tags().map((t) => [t.tag, t.steps])).toEqual([['h', 1]]);
});

test('databases of trackio before traces (and before run ids) read their tables and histograms, with no error', async () => {
  for (const opts of [{ traces: false }, { legacy: true }]) {
    const path = join(tmp('rlwatch-trackio-old-'), 'project.db');
    const db = new TrackioDb(path, opts);
    const run = { id: 'r', name: 'old' };
    db.log(
      run,
      0,
      { completions: trackioTable([{ prompt: 'p' }]), h: trackioHistogram([0, 1], [2]) },
      1.7e15,
    );
    db.close();
    const member = opts.legacy ? 'old' : 'r';
    expect(databaseRuns(path, 'trackio').map((x) => x.member)).toEqual([member]);
    const r = await readSource(path, 'trackio', { member });
    expect(r.errors).toEqual([]);
    expect(r.samples!.count).toBe(1);
    expect(r.histogramSteps!.count).toBe(1);
  }
});

test('a traces table a newer trackio adds to an older project while it is read is read from then on', async () => {
  const path = join(tmp('rlwatch-trackio-upgraded-'), 'project.db');
  const run = { id: 'r', name: 'old' };
  const before = new TrackioDb(path, { traces: false });
  before.log(run, 0, { loss: 1 }, 1.7e15);
  before.close();
  const reader = new TrackioReader(path, { member: 'r' });
  await reader.readMore();
  expect(reader.result().samples!.count).toBe(0);
  const after = new TrackioDb(path); // trackio's init_db: CREATE TABLE IF NOT EXISTS traces
  after.log(run, 1, { loss: 2, trace: trackioTrace([{ role: 'user', content: 'hello' }]) }, 1.7e15 + 1);
  after.close();
  await reader.readMore();
  const r = reader.result();
  expect(r.errors).toEqual([]);
  expect(r.samples!.table('trace', 1)!.rows.map((x) => x.cells)).toEqual([['user: hello']]);
  expect([...r.series.get('loss').values()]).toEqual([1, 2]);
});

test('inspect counts a trackio run’s samples per source and its histogram steps', async () => {
  const dir = tmp('rlwatch-trackio-inspect-samples-');
  mkdirSync(join(dir, 'trackio'));
  writeProject(join(dir, 'trackio', 'project.db')).close();
  const report = await inspectPath(dir);
  const a = report.runs.find((r) => r.run === 'trackio/project.db#grpo')!;
  expect(a.sources).toEqual([
    {
      file: 'project.db',
      format: 'trackio',
      records: 30 + 8 * 3, // metrics rows, then trace rows
      errors: [],
      texts: 0,
      histograms: 14,
      samples: [
        { source: 'agent', rows: 16, dropped: 0, steps: 8 },
        { source: 'completions', rows: 40, dropped: 0, steps: 10 },
        { source: 'raw', rows: 2, dropped: 0, steps: 1 },
        { source: 'trace', rows: 8, dropped: 0, steps: 8 },
      ],
    },
  ]);
  // The list's other item is a metrics value still: no series (not a number), no error.
  expect(Object.keys(a.scalars).filter((t) => !t.startsWith('samples/'))).toEqual(['loss']);
  expect(a.scalars['samples/completions/mean/advantage']).toMatchObject({
    count: 10,
    firstStep: 0,
    lastStep: 270,
  });
});

test('export --samples writes each trackio run’s sample sources, read from its database member', async () => {
  const dir = tmp('rlwatch-trackio-export-');
  writeProject(join(dir, 'project.db')).close();
  const out = join(tmp('rlwatch-trackio-export-out-'), 'out');
  const r = await exportSamples(dir, out);
  expect(r.failed).toEqual([]);
  expect(readdirSync(join(out, 'project.db#grpo', 'samples')).sort()).toEqual(
    ['agent', 'completions', 'raw', 'trace'].flatMap((s) => [`${s}.csv`, `${s}.jsonl`]),
  );
  const lines = readFileSync(join(out, 'project.db#ppo', 'samples', 'completions.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(lines).toEqual(
    Array.from({ length: 5 }, (_, step) => ({
      step,
      sample_index: 0,
      prompt: 'p',
      completion: `c${step}`,
      reward: step,
    })),
  );
});

test('a trackio run’s sample sources pass the check a remote endpoint’s answer gets', async () => {
  const path = join(tmp('rlwatch-trackio-remote-shape-'), 'project.db');
  writeProject(path).close();
  const sources = (await readSource(path, 'trackio', { member: 'r-a' })).samples!.sources();
  expect(sources.map((s) => s.origin)).toEqual(['trackio', 'trackio', 'trackio', 'trackio']);
  expect(sampleSourceListShape.safeParse(sources)).toEqual({ success: true, data: sources });
});
