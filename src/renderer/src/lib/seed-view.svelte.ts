// The "Seed groups" view setting (on, band kind, IQM) and the seed groups among the charted runs, from their configs.

import type { Backend } from '../backend/backend';
import type { BandKind } from '../../../shared/compare/group-stats';
import { groupBySeed, type SeedGroup } from '../../../shared/compare/seed-groups';

/** The context key the chart panels read the seed view by. */
export const SEED_VIEW_CONTEXT = Symbol('seed-view');

/** The band choices as the toolbar names them. */
export const BAND_CHOICES: { value: BandKind; label: string }[] = [
  { value: 'minmax', label: 'min–max' },
  { value: 'std', label: '± std' },
  { value: 'ci95', label: '95 % CI' },
];

export class SeedView {
  /** Draw seed groups as mean and band (their runs' own lines hidden). */
  on = $state(false);
  band = $state<BandKind>('minmax');
  /** Also draw the interquartile mean, dashed. */
  iqm = $state(false);
  /** The groups among the runs last loaded (groupBySeed over their configs). */
  groups = $state.raw<SeedGroup[]>([]);

  /** Each run's config as runs.details gave it: one it has is kept (configs change rarely), none is asked again. */
  private readonly configs = new Map<string, Record<string, unknown>>();
  private seq = 0;

  constructor(private readonly backend: Backend) {}

  /** Groups `runs` by seed, fetching the configs not known yet; a run whose details fail stays a single line. */
  async load(runs: readonly string[]): Promise<void> {
    const seq = ++this.seq;
    const missing = runs.filter((r) => !this.configs.has(r));
    const got = await Promise.all(missing.map((run) => this.backend.invoke('runs.details', { run })));
    const failed = new Set<string>();
    got.forEach((r, i) => {
      const run = missing[i]!;
      if (!r.ok) failed.add(run);
      else if (r.value.config !== null) this.configs.set(run, r.value.config);
    });
    if (seq !== this.seq) return;
    // A run without a config is grouped by its name (groupBySeed's default pattern).
    this.groups = groupBySeed(
      runs.filter((run) => !failed.has(run)).map((run) => ({ run, config: this.configs.get(run) ?? null })),
    );
  }
}
