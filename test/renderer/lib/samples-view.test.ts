// The samples view's text rules: controls and bidi overrides shown escaped (new lines kept), folding, step choice, the strip's bars.

import { describe, expect, test } from 'vitest';
import {
  completionColumn,
  defaultSource,
  laidOutColumns,
  promptColumn,
  tokenColumns,
  tokenShades,
  FOLD_CHARS,
  foldText,
  numberText,
  pickStep,
  shownText,
  STRIP_BARS,
  stripBars,
} from '../../../src/renderer/src/lib/samples-view';

describe('samples view text', () => {
  test('escape sequences and bidi controls are shown visibly; new lines and tabs stay', () => {
    expect(shownText('\u001b[31mred\u001b[0m\nnext\tcol \u202Eevil')).toBe(
      '\\e[31mred\\e[0m\nnext\tcol \\u202eevil',
    );
    expect(shownText('<script>x</script> 日本語 🚀')).toBe('<script>x</script> 日本語 🚀');
  });

  test('long text folds to its first 400 characters, never halving a surrogate pair', () => {
    const long = 'a'.repeat(FOLD_CHARS - 1) + '🚀' + 'b'.repeat(10);
    expect(foldText(long, false)).toEqual({ text: 'a'.repeat(FOLD_CHARS - 1), folded: true });
    expect(foldText(long, true)).toEqual({ text: long, folded: false });
    expect(foldText('short', false)).toEqual({ text: 'short', folded: false });
  });

  test('numbers, the default source and the step shown', () => {
    expect([
      numberText(3),
      numberText(0.123456),
      numberText(1e-7),
      numberText(54713.18),
      numberText(null),
    ]).toEqual(['3', '0.1235', '1.00e-7', '54713', '']);
    expect(
      defaultSource([
        { source: 'args/text_summary', origin: 'text', rows: 1, dropped: 0, steps: [] },
        { source: 'completions', origin: 'wandb', rows: 1, dropped: 0, steps: [] },
      ]),
    ).toBe('completions');
    // A TensorBoard run: every source is text; the completions tag, not HF's TrainingArguments (listed first).
    const at = (n: number): { step: number; rows: number }[] =>
      Array.from({ length: n }, (_, i) => ({ step: i * 10, rows: 4 }));
    expect(
      defaultSource([
        { source: 'args/text_summary', origin: 'text', rows: 1, dropped: 0, steps: at(1) },
        { source: 'model_config/text_summary', origin: 'text', rows: 1, dropped: 0, steps: at(1) },
        { source: 'train/completions', origin: 'text', rows: 40, dropped: 0, steps: at(10) },
      ]),
    ).toBe('train/completions');
    // Named neither way: the tag logged at the most steps, not a config logged once.
    expect(
      defaultSource([
        { source: 'hyperparameters/text_summary', origin: 'text', rows: 1, dropped: 0, steps: at(1) },
        { source: 'eval/text', origin: 'text', rows: 5, dropped: 0, steps: at(1) },
        { source: 'eval/text2', origin: 'text', rows: 50, dropped: 0, steps: at(5) },
      ]),
    ).toBe('eval/text2');
    expect(defaultSource([])).toBe(null);
    expect(pickStep([1, 5, 9], 5, false)).toBe(5);
    expect(pickStep([1, 5, 9], 5, true)).toBe(9);
    expect(pickStep([1, 9], 5, false)).toBe(9);
    expect(pickStep([], null, true)).toBe(null);
  });
});

test("a long run's steps share at most STRIP_BARS bars, each as tall as its fullest step; short runs a bar a step", () => {
  const steps = Array.from({ length: 250_000 }, (_, i) => ({
    step: i * 2,
    rows: i === 123_457 ? 99 : 1 + (i % 3),
  }));
  const { bars, peak } = stripBars(steps);
  expect(bars.length).toBeLessThanOrEqual(STRIP_BARS);
  expect(peak).toBe(99);
  expect(bars[0]).toEqual({ step: 0, lastStep: (Math.ceil(250_000 / STRIP_BARS) - 1) * 2, rows: 3 });
  expect(bars.at(-1)!.lastStep).toBe(499_998);
  // Every step is in exactly one bar, in order.
  for (let k = 1; k < bars.length; k++) expect(bars[k]!.step).toBeGreaterThan(bars[k - 1]!.lastStep);
  const few = stripBars([
    { step: 10, rows: 8 },
    { step: 20, rows: 4 },
  ]);
  expect(few).toEqual({
    bars: [
      { step: 10, lastStep: 10, rows: 8 },
      { step: 20, lastStep: 20, rows: 4 },
    ],
    peak: 8,
  });
  expect(stripBars([])).toEqual({ bars: [], peak: 1 });
});

test('the prompt a sample is followed by across steps, what the model wrote, and number columns first in two panes', () => {
  const cols = (spec: string): { name: string; kind: 'text' | 'number' }[] =>
    spec.split(' ').map((x) => {
      const [name, kind] = x.split(':') as [string, string];
      return { name, kind: kind === 'n' ? 'number' : 'text' };
    });
  const trl = cols('step:n prompt:t completion:t reward:n advantage:n');
  expect(promptColumn(trl)).toBe('prompt');
  expect(completionColumn(trl, 'prompt')).toBe('completion');
  const verl = cols('input:t output:t gts:t score:n step:n');
  expect(promptColumn(verl)).toBe('input');
  expect(completionColumn(verl, 'input')).toBe('output');
  expect(promptColumn(cols('text:t score:n'))).toBe(null);
  expect(completionColumn(cols('text:t score:n'), null)).toBe('text');
  expect(completionColumn(cols('score:n'), null)).toBe(null);
  expect(laidOutColumns(trl, false).map((c) => c.column.name)).toEqual(trl.map((c) => c.name));
  expect(laidOutColumns(trl, true).map((c) => `${c.column.name}@${c.at}`)).toEqual([
    'step@0',
    'reward@3',
    'advantage@4',
    'prompt@1',
    'completion@2',
  ]);
  // Every step's rows lead with their step: the samples' own step column is not shown a second time.
  expect(laidOutColumns(trl, false, true).map((c) => `${c.column.name}@${c.at}`)).toEqual([
    'prompt@1',
    'completion@2',
    'reward@3',
    'advantage@4',
  ]);
  expect(laidOutColumns(verl, true, true).map((c) => c.column.name)).toEqual([
    'score',
    'input',
    'output',
    'gts',
  ]);
});

test('tokens coloured by a per-token measure: the least likely token hottest, the highest entropy hottest; mismatches none', () => {
  const cols = [
    { name: 'completion', kind: 'text' as const },
    { name: 'tokens', kind: 'text' as const },
    { name: 'logprobs', kind: 'text' as const },
    { name: 'entropy', kind: 'text' as const },
  ];
  expect(tokenColumns(cols)).toEqual({ tokens: 'tokens', measures: ['logprobs', 'entropy'] });
  expect(tokenColumns(cols.slice(0, 2))).toBe(null);
  const tokens = JSON.stringify(['The', ' answer', ' is', ' 42']);
  const lp = tokenShades(tokens, JSON.stringify([-0.1, -2.1, -0.1, -4.1]), 'logprobs')!;
  expect(lp.map((t) => [t.text, Math.round(t.shade * 1000) / 1000])).toEqual([
    ['The', 0],
    [' answer', 0.5],
    [' is', 0],
    [' 42', 1],
  ]);
  const ent = tokenShades(tokens, JSON.stringify([1, 3, null, 2]), 'entropy')!;
  expect(ent.map((t) => t.shade)).toEqual([0, 1, 0, 0.5]);
  expect(ent[2]!.value).toBe(null);
  expect(tokenShades(tokens, JSON.stringify([1, 2]), 'entropy')).toBe(null);
  expect(tokenShades('not json', '[1]', 'entropy')).toBe(null);
});
