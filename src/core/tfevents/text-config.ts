// A run's config from the text summaries its trainer wrote: HF Trainer's args/model_config JSON, CleanRL's hyperparameter table, SB3's hparams.

import type { TextStore } from './text-store';

/** HF Trainer's TensorBoardCallback: `add_text("args", args.to_json_string())`. */
const HF_ARGS_TAG = 'args/text_summary';
/** HF Trainer's TensorBoardCallback: `add_text("model_config", model.config.to_json_string())`. */
const HF_MODEL_CONFIG_TAG = 'model_config/text_summary';
/** CleanRL: `add_text("hyperparameters", "|param|value|\n|-|-|\n" + "|key|value|" lines)`. */
const CLEANRL_TAG = 'hyperparameters/text_summary';

/** The object a JSON text holds (a markdown code fence around it allowed), or null. */
export function jsonObjectText(text: string): Record<string, unknown> | null {
  let t = text.trim();
  const fence = /^```[A-Za-z]*\n([\s\S]*)\n```$/.exec(t);
  if (fence) t = fence[1]!.trim();
  if (!t.startsWith('{')) return null;
  try {
    const v: unknown = JSON.parse(t);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A cell of a markdown table as the value Python's str() wrote: numbers, True/False, None, else the text. */
function tableValue(s: string): unknown {
  if (s === 'True') return true;
  if (s === 'False') return false;
  if (s === 'None') return null;
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return Number(s);
  return s;
}

/** The `|param|value|` table CleanRL writes (header, separator, a row per key), or null when it is not one. */
export function markdownParamTable(text: string): Record<string, unknown> | null {
  const lines = text.trim().split('\n');
  if (lines.length < 3 || !/^\|\s*param\s*\|\s*value\s*\|$/i.test(lines[0]!.trim())) return null;
  if (!/^\|[\s:-]+\|[\s:-]+\|$/.test(lines[1]!.trim())) return null;
  const out: Record<string, unknown> = {};
  for (const line of lines.slice(2)) {
    const m = /^\|([^|]*)\|(.*)\|$/.exec(line.trim());
    if (!m) continue;
    const key = m[1]!.trim();
    if (key === '') continue;
    Object.defineProperty(out, key, {
      value: tableValue(m[2]!.trim()),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** The text of a tag's newest single-cell item, unless it was cut (a cut JSON does not parse anyway). */
function lastText(store: TextStore, tag: string): string | null {
  const item = store.last(tag);
  return item && !item.truncated && item.cells.length === 1 ? item.cells[0]! : null;
}

/**
 * The config the texts carry, flat as W&B's HF integration logs it: the model config's keys, then the
 * training arguments' over them (both HF Trainer's), over CleanRL's table, over SB3's hparams. Null
 * when there is none.
 */
export function configFromTexts(
  store: TextStore | null,
  hparams: Record<string, unknown> | null,
): Record<string, unknown> | null {
  const parts: (Record<string, unknown> | null)[] = [hparams];
  if (store !== null && store.count > 0) {
    const table = lastText(store, CLEANRL_TAG);
    const model = lastText(store, HF_MODEL_CONFIG_TAG);
    const args = lastText(store, HF_ARGS_TAG);
    parts.push(
      table === null ? null : markdownParamTable(table),
      model === null ? null : jsonObjectText(model),
      args === null ? null : jsonObjectText(args),
    );
  }
  const present = parts.filter((p): p is Record<string, unknown> => p !== null);
  if (present.length === 0) return null;
  const out: Record<string, unknown> = {};
  // A parsed `__proto__` key is an own key: copied as one, never as the object's prototype.
  for (const p of present)
    for (const [k, v] of Object.entries(p))
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}
