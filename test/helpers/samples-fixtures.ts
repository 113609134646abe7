// Test helper: writes sample sources as trainers do: a TRL-like completions JSONL (with a 10,000-sample step and hostile text) and a W&B run with `completions` tables.

import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom } from '../../src/shared/seeded-random';
import { frameLog, rec } from '../core/wandb/wandb-log-writer';

/** Text that must never run or restyle the page: ANSI escapes, HTML and script, bidi controls, a string past 1 MB. */
export const HOSTILE = {
  ansi: '\u001b[31mRED\u001b[0m \u001b]0;title\u0007 \u001b[2J cleared?',
  html: '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><b>bold?</b>',
  bidi: 'abc \u202Eevil.exe\u202C \u2066isolated\u2069 \u200F rtl',
  /** 1.2 M characters: past the 1 MiB-character cell cap, so kept cut and flagged. */
  huge: 'A'.repeat(1_200_000) + 'END-OF-HUGE',
} as const;

const PROMPTS = [
  'What is 17 * 23?',
  'Write a haiku about gradient descent.',
  'Solve: x^2 - 5x + 6 = 0.',
  'Name three prime numbers above 100.',
];

/** One TRL-GRPO-like sample line: prompt, completion, a reward per function, the sum, the advantage. */
function sample(step: number, i: number, rnd: () => number): Record<string, unknown> {
  const correct = rnd() < 0.5 ? 1 : 0;
  const format = Math.round(rnd() * 100) / 100;
  const words = 5 + Math.floor(rnd() * 60);
  return {
    step,
    prompt: PROMPTS[i % PROMPTS.length],
    completion: `<think>${'step '.repeat(words)}</think> answer ${i}`,
    'rewards/correctness_reward': correct,
    'rewards/format_reward': format,
    reward: correct + format,
    advantage: Math.round((rnd() - 0.5) * 2000) / 1000,
  };
}

export interface CompletionsFixture {
  file: string;
  /** Rows per step as written. */
  steps: Map<number, number>;
}

/**
 * `dir/completions.jsonl`: steps 10 (8 samples), 20 (the hostile samples plus 4), 30 (`bigStep` samples).
 * Numbers are seeded: the same file on every machine.
 */
export function writeCompletionsJsonl(dir: string, bigStep = 10_000): CompletionsFixture {
  mkdirSync(dir, { recursive: true });
  const rnd = seededRandom(25);
  const lines: string[] = [];
  const steps = new Map<number, number>();
  const put = (o: Record<string, unknown>): void => {
    lines.push(JSON.stringify(o));
    steps.set(o.step as number, (steps.get(o.step as number) ?? 0) + 1);
  };
  for (let i = 0; i < 8; i++) put(sample(10, i, rnd));
  for (const [k, text] of Object.entries(HOSTILE))
    put({ ...sample(20, 0, rnd), prompt: `hostile ${k}`, completion: text });
  for (let i = 0; i < 4; i++) put(sample(20, i, rnd));
  for (let i = 0; i < bigStep; i++) put(sample(30, i, rnd));
  const file = join(dir, 'completions.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  return { file, steps };
}

export interface WandbTablesFixture {
  /** The run folder (holding run-ID.wandb and files/). */
  dir: string;
  /** The table files written, by step. */
  tables: Map<number, string>;
}

/**
 * A W&B offline run as the SDK leaves it when TRL logs `completions` tables: history rows with `_step`, a loss and
 * a `{"_type": "table-file", "path": "media/table/completions_STEP_HASH.table.json", …}` reference, the table
 * files written under `files/` in wandb's table JSON ({columns, data}).
 */
export function writeWandbTables(parent: string, steps: readonly number[] = [5, 10]): WandbTablesFixture {
  const dir = join(parent, 'run-20260101_000000-smp00001');
  const media = join(dir, 'files', 'media', 'table');
  mkdirSync(media, { recursive: true });
  const rnd = seededRandom(7);
  const records = [rec.run('smp00001', 1_767_225_600)];
  const tables = new Map<number, string>();
  const columns = ['step', 'prompt', 'completion', 'correctness_reward', 'advantage'];
  for (const step of steps) {
    const data = Array.from({ length: 6 }, (_, i) => {
      const s = sample(step, i, rnd);
      return [String(step), s.prompt, s.completion, s['rewards/correctness_reward'], s.advantage];
    });
    data.push([String(step), 'unicode', 'naïve café — 日本語 🚀 \u202Eright-to-left', null, 0]);
    const body = JSON.stringify({ columns, data });
    const hash = createHash('sha256').update(body).digest('hex');
    const path = `media/table/completions_${step}_${hash.slice(0, 20)}.table.json`;
    writeFileSync(join(dir, 'files', path), body);
    tables.set(step, join(dir, 'files', path));
    const ref = {
      _type: 'table-file',
      sha256: hash,
      size: body.length,
      path,
      ncols: columns.length,
      nrows: data.length,
    };
    records.push(
      rec.history([
        ['_step', String(step)],
        ['train/loss', String(1 / (step + 1))],
        ['completions', JSON.stringify(ref)],
      ]),
    );
  }
  writeFileSync(join(dir, 'run-smp00001.wandb'), frameLog(records));
  return { dir, tables };
}
