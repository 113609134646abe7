// The samples view's rules: cells shown as inert text (controls escaped, new lines kept), long text folded, numbers formatted, the per-step strip's bars.

import { escapeControls } from '../../../shared/control-chars';
import { formatNumber } from '../../../shared/format';
import type { SampleCell, SampleColumn, SampleSourceInfo } from '../../../shared/samples';

/** Characters of a text cell shown before "show all". */
export const FOLD_CHARS = 400;

/** A text cell as shown: every control and bidi override written visibly (`\e`, `\u202e`), new lines and tabs kept. */
export function shownText(text: string): string {
  return text.replace(/[^\n\t]+/g, escapeControls);
}

/** The first `FOLD_CHARS` characters of a long text (whole, not cut mid surrogate pair), or the text itself. */
export function foldText(text: string, open: boolean): { text: string; folded: boolean } {
  if (open || text.length <= FOLD_CHARS) return { text, folded: false };
  let end = FOLD_CHARS;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return { text: text.slice(0, end), folded: true };
}

/** A number cell in the one number format (`formatNumber`); a text cell as it is; null as empty. */
export function numberText(cell: SampleCell): string {
  if (cell === null) return '';
  return typeof cell === 'string' ? cell : formatNumber(cell);
}

/** Source names that say "generated samples" (TRL's `completions`, verl's `rollouts`, a `samples/…` tag). */
const SAMPLE_LIKE =
  /complet|sample|rollout|generat|response|output|trajector|conversation|chat|answer|prompt/i;
/** Source names that say "configuration" (HF's `args/text_summary`, `model_config/…`, CleanRL's `hyperparameters`). */
const CONFIG_LIKE =
  /(^|[/_.-])(args|config|model_config|hparams|hyperparameters|params|arguments|text_summary)($|[/_.-])/i;

/**
 * The source shown first: one named like samples (completions, rollouts) before any other, a config (HF's
 * `args/text_summary`, hyperparameters) last; then a completions file or table before TensorBoard text, then the one
 * logged at the most steps (a config is logged once), then as listed.
 */
export function defaultSource(sources: readonly SampleSourceInfo[]): string | null {
  const rank = (s: SampleSourceInfo): number[] => [
    CONFIG_LIKE.test(s.source) ? 0 : SAMPLE_LIKE.test(s.source) ? 2 : 1,
    s.origin === 'text' ? 0 : 1,
    s.steps.length,
  ];
  let best: SampleSourceInfo | null = null;
  let bestRank: number[] = [];
  for (const s of sources) {
    const r = rank(s);
    const i = r.findIndex((x, k) => x !== bestRank[k]);
    if (best === null || (i >= 0 && r[i]! > bestRank[i]!)) {
      best = s;
      bestRank = r;
    }
  }
  return best?.source ?? null;
}

/** A column's own name: the last part of a path-style one (`train/prompt` → `prompt`). */
const leafName = (name: string): string => name.slice(name.lastIndexOf('/') + 1).toLowerCase();
/** Names of the text a sample was asked with (verl's `input`, TRL's `prompt`). */
const PROMPT_NAME = /^(prompts?|inputs?|query|queries|questions?|instructions?|problems?|messages)$/;
/** Names of the text a model wrote (TRL's `completion`, verl's `output`). */
const OUTPUT_NAME = /complet|response|output|generat|answer|rollout|text/;

/** The text column holding a sample's prompt (`prompt`, `input`, `question`…), or null: the one a sample is followed
 * across steps by. */
export function promptColumn(columns: readonly SampleColumn[]): string | null {
  return columns.find((c) => c.kind === 'text' && PROMPT_NAME.test(leafName(c.name)))?.name ?? null;
}

/** The text column holding what the model wrote: one named so (`completion`, `output`, `response`…), else the first
 * text column besides the prompt; null when there is none. */
export function completionColumn(columns: readonly SampleColumn[], prompt: string | null): string | null {
  const texts = columns.filter((c) => c.kind === 'text' && c.name !== prompt);
  return (texts.find((c) => OUTPUT_NAME.test(leafName(c.name))) ?? texts[0])?.name ?? null;
}

/**
 * The columns as a pane lays them out: as logged, or (`numbersFirst`, two panes side by side) the number columns
 * first, so a narrow pane shows each sample's reward and advantage beside its text rather than past its right edge.
 * Each with its index in the page's rows. With `everyStep` (each row led by its step) the samples' own `step` column
 * is left out, as the text forms leave it (shared/samples-text.ts): one step column, not two.
 */
export function laidOutColumns(
  columns: readonly SampleColumn[],
  numbersFirst: boolean,
  everyStep = false,
): { column: SampleColumn; at: number }[] {
  const all = columns
    .map((column, at) => ({ column, at }))
    .filter((c) => !(everyStep && c.column.name === 'step'));
  if (!numbersFirst) return all;
  return [...all.filter((c) => c.column.kind === 'number'), ...all.filter((c) => c.column.kind !== 'number')];
}

/** A column of a sample's tokens (a JSON list of strings, as verl and OpenRLHF can dump them). */
const TOKENS_NAME = /^(tokens|token_strs|response_tokens|output_tokens|completion_tokens)$/;
/** Per-token measures the tokens can be coloured by; log-probabilities colour the unlikely tokens. */
const TOKEN_MEASURE =
  /^(logprobs?|log_probs?|token_logprobs|old_log_probs|entropy|entropies|token_entropy|kl|token_kl)$/;
/** A tokens cell longer than this is shown as text (parsing and laying out a huge list is slow). */
export const TOKENS_MAX_CHARS = 200_000;

/** The tokens column and the per-token measures beside it (by name), or null when the samples carry none. */
export function tokenColumns(
  columns: readonly SampleColumn[],
): { tokens: string; measures: string[] } | null {
  const tokens = columns.find((c) => c.kind === 'text' && TOKENS_NAME.test(leafName(c.name)));
  const measures = columns
    .filter((c) => c.kind === 'text' && TOKEN_MEASURE.test(leafName(c.name)))
    .map((c) => c.name);
  return tokens && measures.length > 0 ? { tokens: tokens.name, measures } : null;
}

/** A token as coloured: its text, its value, its shade (0 cool … 1 hot: an unlikely token, high entropy or KL). */
export interface TokenShade {
  text: string;
  value: number | null;
  shade: number;
}

/** A JSON list cell as an array, or null. */
function listOf(cell: SampleCell): unknown[] | null {
  if (typeof cell !== 'string' || cell.length > TOKENS_MAX_CHARS || !cell.startsWith('[')) return null;
  try {
    const v: unknown = JSON.parse(cell);
    return Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * A row's tokens shaded by one measure (`measure` its column name): each token's value scaled from the row's lowest to
 * its highest (a log-probability negated, so the least likely token is the hottest); null unless both cells are lists
 * of the same length, tokens strings.
 */
export function tokenShades(tokens: SampleCell, values: SampleCell, measure: string): TokenShade[] | null {
  const ts = listOf(tokens);
  const vs = listOf(values);
  if (!ts || !vs || ts.length !== vs.length || !ts.every((t) => typeof t === 'string')) return null;
  const sign = /log_?prob/i.test(leafName(measure)) ? -1 : 1;
  const nums = vs.map((v) => (typeof v === 'number' && Number.isFinite(v) ? v : null));
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of nums)
    if (v !== null) {
      lo = Math.min(lo, sign * v);
      hi = Math.max(hi, sign * v);
    }
  return (ts as string[]).map((text, i) => {
    const v = nums[i]!;
    const shade = v === null || hi <= lo ? 0 : (sign * v - lo) / (hi - lo);
    return { text, value: v, shade };
  });
}

/** The step to show: the chosen one while it exists, else (or when following) the newest. */
export function pickStep(steps: readonly number[], chosen: number | null, follow: boolean): number | null {
  if (steps.length === 0) return null;
  if (!follow && chosen !== null && steps.includes(chosen)) return chosen;
  return steps[steps.length - 1]!;
}

/** Bars a samples-per-step strip draws at most: a long run's steps share bars past it. */
export const STRIP_BARS = 300;

/** One bar of the strip: the step it picks (the first of its steps), the steps it covers, its tallest count. */
export interface StripBar {
  step: number;
  lastStep: number;
  rows: number;
}

/** Steps (in order) as at most `max` bars of consecutive steps, each as tall as its fullest step, and the tallest. */
export function stripBars(
  steps: readonly { step: number; rows: number }[],
  max = STRIP_BARS,
): { bars: StripBar[]; peak: number } {
  const per = Math.max(1, Math.ceil(steps.length / max));
  const bars: StripBar[] = [];
  let peak = 1;
  for (let i = 0; i < steps.length; i += per) {
    let rows = 0;
    const end = Math.min(steps.length, i + per);
    for (let k = i; k < end; k++) rows = Math.max(rows, steps[k]!.rows);
    bars.push({ step: steps[i]!.step, lastStep: steps[end - 1]!.step, rows });
    peak = Math.max(peak, rows);
  }
  return { bars, peak };
}
