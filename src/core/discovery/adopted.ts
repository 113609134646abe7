// Folders that are parts of a run, not runs: HF checkpoints' snapshots and per-step sample dumps, adopted by the run beside them.

import { basename, dirname, sep } from 'node:path';
import { dumpStep } from '../samples/completions';
import type { DiscoveredRun, DiscoveredSource } from './discovered';

/** HF Trainer's checkpoint folders (`PREFIX_CHECKPOINT_DIR`-N; `tmp-` while transformers 4.36–4.37 staged
 * one before renaming it into place). */
const CHECKPOINT_DIR = /^(tmp-)?checkpoint-(\d+)$/;

/** Whether a folder of this name holds HF Trainer checkpoints (and so, next, a run's snapshot). */
export function isCheckpointDir(name: string): boolean {
  return CHECKPOINT_DIR.test(name);
}

/**
 * Checkpoint folders holding nothing recognised but `trainer_state.json` are snapshots of the run in
 * their parent folder (their log_history is a prefix of its), not runs. The parent's run reads the
 * newest one (highest N; a staged `tmp-` one never) unless the parent has a trainer_state.json of its
 * own; a parent with nothing recognised becomes a run reading it, unless a run lies below the parent
 * (HF's TensorBoard callback writes `runs/<date>_<host>/` beside the checkpoints: that run is the
 * trainer's log). Older snapshots are never read. Rewrites `runs` in place.
 */
export function adoptSnapshots(runs: DiscoveredRun[], root: string, rel: (p: string) => string): void {
  const newest = new Map<string, { n: number; source: DiscoveredSource }>();
  const snapshotRuns = new Set<DiscoveredRun>();
  for (const r of runs) {
    const m = CHECKPOINT_DIR.exec(basename(r.dir));
    const only = r.sources.length === 1 ? r.sources[0]! : null;
    if (!m || r.dir === root || only?.name !== 'trainer_state.json' || only.format !== 'trainer_state')
      continue;
    snapshotRuns.add(r);
    if (m[1]) continue; // staged: renamed to checkpoint-N once complete
    const parent = dirname(r.dir);
    const n = Number(m[2]);
    const seen = newest.get(parent);
    if (!seen || n > seen.n)
      newest.set(parent, {
        n,
        source: { ...only, name: `${basename(r.dir)}/${only.name}`, snapshot: true },
      });
  }
  if (snapshotRuns.size === 0) return;
  const kept = runs.filter((r) => !snapshotRuns.has(r));
  const byDir = new Map(kept.map((r) => [r.dir, r]));
  const added: DiscoveredRun[] = [];
  for (const [parent, { source }] of newest) {
    const own = byDir.get(parent);
    if (own) {
      if (!own.sources.some((s) => s.format === 'trainer_state')) own.sources.push(source);
    } else if (!kept.some((r) => r.dir.startsWith(parent + sep))) {
      added.push({ run: rel(parent), dir: parent, sources: [source] });
    }
  }
  runs.splice(0, runs.length, ...kept, ...added);
}

/** Whether a folder's every recognised file is a per-step sample dump's (`dumpStep`): a dump folder, a part of the
 * run in its parent folder (adoptDumps). */
export function isDumpFolder(sources: readonly DiscoveredSource[]): boolean {
  return sources.every((s) => s.format === 'completions' && dumpStep(s.name) !== null);
}

/**
 * Per-step sample dumps (verl's `rollouts/{step}.jsonl`, OpenRLHF's or a custom `samples/step_N.jsonl`): a folder
 * below the opened one whose every recognised file is a completions file named by its step (`dumpStep`) is no run
 * of its own but one sample source of the run in its parent folder (a run made there when the parent has none), its
 * files named `FOLDER/N.jsonl` from that folder. Its reader names the source by the folder and takes the step from
 * the file name (completions.ts). Rewrites `runs` in place.
 */
export function adoptDumps(runs: DiscoveredRun[], root: string, rel: (p: string) => string): void {
  const dumps = runs.filter((r) => r.dir !== root && isDumpFolder(r.sources));
  if (dumps.length === 0) return;
  const kept = runs.filter((r) => !dumps.includes(r));
  const byDir = new Map(kept.map((r) => [r.dir, r]));
  for (const d of dumps) {
    const parent = dirname(d.dir);
    let own = byDir.get(parent);
    if (!own) byDir.set(parent, (own = { run: rel(parent), dir: parent, sources: [] }));
    if (!kept.includes(own)) kept.push(own);
    own.sources.push(...d.sources.map((s) => ({ ...s, name: `${basename(d.dir)}/${s.name}` })));
  }
  runs.splice(0, runs.length, ...kept);
}
