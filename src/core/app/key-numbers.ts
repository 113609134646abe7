// Per-run "key numbers" (last step, last reward / KL / entropy / loss) kept from the deltas for the tray menu.

import { classifyTag, type Role } from '../../shared/catalog';
import type { SeriesDelta } from '../../shared/domain';

/** The roles the tray shows, most important first (seed 004's dashboard: reward, KL, entropy). */
export const KEY_ROLES: readonly Role[] = ['reward', 'kl', 'entropy', 'loss'];

export const KEY_LABELS: Partial<Record<Role, string>> = {
  reward: 'reward',
  kl: 'KL',
  entropy: 'entropy',
  loss: 'loss',
};

export interface KeyNumbers {
  step: number | null;
  /** Last value per key role, with the tag it came from. */
  values: Partial<Record<Role, { tag: string; value: number }>>;
}

/** Tracks key numbers per run; the first tag seen for a role keeps it (a run logging two reward tags shows one). */
export class KeyNumberTracker {
  private readonly runs = new Map<string, KeyNumbers>();

  observe(d: SeriesDelta): void {
    const n = d.steps.length;
    if (n === 0) return;
    let k = this.runs.get(d.run);
    if (!k) this.runs.set(d.run, (k = { step: null, values: {} }));
    const last = d.steps[n - 1]!;
    if (k.step === null || last > k.step) k.step = last;
    const cls = classifyTag(d.tag);
    if (!cls || !KEY_ROLES.includes(cls.role)) return;
    const held = k.values[cls.role];
    if (held && held.tag !== d.tag) return;
    const raw = d.values[n - 1]!;
    k.values[cls.role] = { tag: d.tag, value: cls.transform === 'negate' ? -raw : raw };
  }

  get(run: string): KeyNumbers {
    return this.runs.get(run) ?? { step: null, values: {} };
  }

  clear(): void {
    this.runs.clear();
  }
}
