// Samples search benchmark: a substring and a /regex/ over every step of 1M samples (1000 steps × 1000, one file a step as verl dumps them), one page answered.
// Run: npx tsx bench/samples-search.bench.ts [samples]

import { samplePage } from '../src/core/app/run-samples';
import { SampleStore } from '../src/core/samples/sample-store';
import { seededRandom } from '../src/shared/seeded-random';

const total = Number(process.argv[2] ?? 1_000_000);
const perStep = 1000;
const WORDS =
  'the model answer is so we get proof step first then value check result sum total number because let compute'.split(
    ' ',
  );
const rand = seededRandom(7);
const prompts = Array.from({ length: 500 }, (_, i) => `Question ${i}: what is ${i} times ${i + 3}?`);

const built = performance.now();
const stores: SampleStore[] = [];
for (let step = 0; step * perStep < total; step++) {
  // One store a step: a dump's file is one reader, each with its own budget.
  const store = new SampleStore();
  for (let k = 0; k < perStep; k++) {
    const words: string[] = [];
    for (let chars = 0; chars < 180; chars += words[words.length - 1]!.length + 1)
      words.push(WORDS[Math.floor(rand() * WORDS.length)]!);
    const n = step * perStep + k;
    // 1 in 1000 holds the rare phrase; every one an "answer is N".
    if (n % 1000 === 17) words.push('zebra quartz');
    words.push(`answer is ${Math.floor(rand() * 10_000)}`);
    // Joined: one flat string, as JSON.parse gives a reader (not a rope of 40 pieces).
    const text = words.join(' ');
    store.add('rollouts', 'jsonl', step, [
      ['input', prompts[k % prompts.length]!],
      ['output', text],
      ['score', rand()],
    ]);
  }
  stores.push(store);
}
const rows = stores.reduce((n, s) => n + s.count, 0);
const chars = stores.reduce((n, s) => n + s.chars, 0);
console.log(
  `samples search: ${rows.toLocaleString()} samples over ${stores.length} steps, ` +
    `${(chars / 1e6).toFixed(0)} M characters (built in ${((performance.now() - built) / 1000).toFixed(1)} s)`,
);

/**
 * Median wall and CPU milliseconds of 3 runs of a first page of every step's matches (the first run also builds the
 * index, reported apart). CPU time is this process's own: on a machine shared by many jobs it is the figure wall time
 * would be on a quiet one (the search is one thread's work).
 */
function time(search: string): { ms: number; cpu: number; first: number; matched: number } {
  const runs: { ms: number; cpu: number }[] = [];
  let matched = 0;
  for (let k = 0; k < 3; k++) {
    const t = performance.now();
    const c = process.cpuUsage();
    matched = samplePage('bench', 'rollouts', null, stores, {
      ...(search === '' ? {} : { search }),
      limit: 100,
    }).matched;
    const used = process.cpuUsage(c);
    runs.push({ ms: performance.now() - t, cpu: (used.user + used.system) / 1000 });
  }
  const mid = [...runs].sort((a, b) => a.cpu - b.cpu)[1]!;
  return { ...mid, first: runs[0]!.ms, matched };
}

const cases: [string, string, string][] = [
  ['every_step_ms', '', 'every step, no search (the first page of 1M)'],
  ['substring_rare_ms', 'zebra quartz', 'a rare substring (1 in 1000)'],
  ['substring_common_ms', 'ANSWER IS 42', 'a common substring, any case'],
  ['regex_ms', '/answer is 4\\d{3}$/', 'a regex with a literal'],
  ['regex_noliteral_ms', '/\\d{4}$/', 'a regex with no literal (every text through re2js)'],
];
for (const [key, search, what] of cases) {
  const { ms, cpu, first, matched } = time(search);
  console.log(
    `${what.padEnd(52)} ${JSON.stringify(search).padEnd(24)} ${matched.toLocaleString().padStart(9)} matches  ` +
      `${cpu.toFixed(0).padStart(6)} ms CPU, ${ms.toFixed(0).padStart(6)} ms wall (first ${first.toFixed(0)} ms wall)`,
  );
  console.log(`figure samples_search.${key} ${cpu.toFixed(1)}`);
}
