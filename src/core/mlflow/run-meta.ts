// MLflow run metadata (file store and SQLite): recognising a run's meta.yaml, parsing it, a run's config, progress and end.

import type { RunEnd } from '../../shared/domain';
import type { ProgressInfo } from '../readers/types';
import { isRecord, parseYaml } from '../readers/yaml-document';

/** A meta.yaml is a few hundred bytes (its run name and artifact path a few kB at most); past this it is not
 * MLflow's, and is parsed in one piece: this bounds how long that holds the event loop. */
export const MAX_META_BYTES = 32 << 10;

/** MLflow's RunStatus enum as meta.yaml stores it (an int), by name. */
const RUN_STATUS: Record<number, string> = {
  1: 'RUNNING',
  2: 'SCHEDULED',
  3: 'FINISHED',
  4: 'FAILED',
  5: 'KILLED',
};

export interface RunMeta {
  runId: string;
  /** meta.yaml's run_name (MLflow ≥ 1.29 writes it); null when absent or empty. */
  runName: string | null;
  experimentId: string | null;
  /** RUNNING, SCHEDULED, FINISHED, FAILED, KILLED; the raw value when unknown; null when absent. */
  status: string | null;
  /** Seconds since the epoch (meta.yaml holds milliseconds); null when absent. */
  startTime: number | null;
  endTime: number | null;
  lifecycleStage: string | null;
}

/**
 * Whether a meta.yaml is an MLflow run's (not an experiment's, which has no run_uuid): `run_uuid` and
 * `experiment_id` as top-level keys, as `yaml.safe_dump` writes them.
 */
export function isMlflowRunMeta(head: string): boolean {
  return /^run_uuid:[ \t]*\S/m.test(head) && /^experiment_id:/m.test(head);
}

/** A run's meta.yaml, or an error message when it is not one. */
export function parseRunMeta(text: string): { ok: true; meta: RunMeta } | { ok: false; message: string } {
  const d = parseMapping(text);
  if (typeof d === 'string') return { ok: false, message: d };
  const runId = text_(d['run_id']) ?? text_(d['run_uuid']);
  if (runId === null) return { ok: false, message: 'meta.yaml: no run_uuid' };
  const status = d['status'];
  return {
    ok: true,
    meta: {
      runId,
      runName: text_(d['run_name']),
      experimentId: text_(d['experiment_id']),
      status: typeof status === 'number' ? (RUN_STATUS[status] ?? String(status)) : text_(status),
      startTime: millis(d['start_time']),
      endTime: millis(d['end_time']),
      lifecycleStage: text_(d['lifecycle_stage']),
    },
  };
}

/** An experiment's meta.yaml (mlruns/EXP_ID/meta.yaml): its `name` (null without one) and whether it is deleted
 * (MLflow's FileStore moves it to `.trash/`, its runs unmarked); null when it is not an experiment's (a run's). */
export function parseExperimentMeta(text: string): { name: string | null; deleted: boolean } | null {
  const d = parseMapping(text);
  if (typeof d === 'string' || d['run_uuid'] !== undefined || d['experiment_id'] === undefined) return null;
  return { name: text_(d['name']), deleted: d['lifecycle_stage'] === 'deleted' };
}

/** A meta.yaml's top-level mapping, or an error message. */
function parseMapping(text: string): Record<string, unknown> | string {
  const doc = parseYaml(text, 'meta.yaml', MAX_META_BYTES);
  if (!doc.ok) return doc.message;
  return isRecord(doc.value) ? doc.value : 'meta.yaml: not a mapping';
}

function text_(v: unknown): string | null {
  if (typeof v === 'string') return v === '' ? null : v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

function millis(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v / 1000 : null;
}

/** A plain decimal literal: optional '-', no leading zeros, optional fraction and exponent. */
const DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/;

/**
 * A param's stored text as a config value. MLflow stores every param as text (`str(value)` in Python); it
 * becomes a number only where the text is a plain decimal literal (an integer within ±2^53: exact; a finite
 * decimal, `0.02`, `1e-05`: the double Python's `float()` reads from it), so thresholds such as `target_kl`
 * apply. Anything else stays the exact string: `007`, `+1`, `nan`, `inf`, `True`, `None`, `[64, 64]`, 2^64.
 */
export function paramValue(text: string): string | number {
  if (!DECIMAL.test(text)) return text;
  const n = Number(text);
  if (!Number.isFinite(n)) return text;
  if (/^-?\d+$/.test(text) && !Number.isSafeInteger(n)) return text;
  return n;
}

/** A run's MLflow name: its `mlflow.runName` tag, else its run_name, else its id (null without meta). */
export function runNameOf(tag: string | undefined, m: RunMeta | null): string | null {
  return tag || m?.runName || m?.runId || null;
}

/** The JSON record of every model the run logged (kilobytes of flavours and paths): not the run's config. */
const MODEL_HISTORY = 'mlflow.log-model.';

/**
 * A run's config and progress, the same for both stores: every param (`paramValue`), `mlflow.runName` (the
 * `mlflow.runName` tag, else the run's name, else its id), `mlflow.runId`, `mlflow.experimentId`, `mlflow.status`
 * and the tags as `mlflow.tags` (but the logged models' `mlflow.log-model.history`). Progress: the status, fraction
 * 1 once FINISHED.
 */
export function mlflowRunState(
  params: ReadonlyMap<string, string>,
  tags: ReadonlyMap<string, string>,
  m: RunMeta | null,
): { config: Record<string, unknown> | null; progress: ProgressInfo | null } {
  const config: Record<string, unknown> = {};
  for (const [name, text] of params) if (name !== '__proto__') config[name] = paramValue(text);
  const shown: Record<string, string> = {};
  for (const [name, text] of tags)
    if (name !== '__proto__' && !name.startsWith(MODEL_HISTORY)) shown[name] = text;
  const runName = runNameOf(shown['mlflow.runName'], m);
  if (runName !== null) config['mlflow.runName'] = runName;
  if (m) {
    config['mlflow.runId'] = m.runId;
    if (m.experimentId !== null) config['mlflow.experimentId'] = m.experimentId;
    if (m.status !== null) config['mlflow.status'] = m.status;
  }
  if (Object.keys(shown).length > 0) config['mlflow.tags'] = shown;
  return {
    config: Object.keys(config).length > 0 ? config : null,
    progress: m
      ? {
          fraction: m.status === 'FINISHED' ? 1 : null,
          etaSeconds: null,
          fields: {
            run_id: m.runId,
            run_name: runName,
            status: m.status,
            start_time: m.startTime,
            end_time: m.endTime,
            lifecycle_stage: m.lifecycleStage,
          },
        }
      : null,
  };
}

/** How an MLflow run ended, by the status its progress carries: FINISHED finished, FAILED or KILLED crashed. */
export function mlflowRunEnd(progress: ProgressInfo | null): RunEnd | null {
  const status = progress?.fields['status'];
  if (status === 'FINISHED') return 'finished';
  return status === 'FAILED' || status === 'KILLED' ? 'crashed' : null;
}
