// An incident snapshot of an alert draws and lists what else moved sharply when it began (issue 34 §5).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { incidentTags } from '../../../src/core/export/incident-figure';
import { writeIncident } from '../../../src/core/export/incident';
import type { RuleId } from '../../../src/core/health';
import { replayAlerts } from '../../../src/core/watch/replay-incident';
import { DEFAULT_SETTINGS } from '../../../src/shared/domain';
import { tempDirs } from '../../helpers/temp-dirs';

const tmp = tempDirs();

/** An SB3 progress.csv whose learning rate is multiplied by 100 at row 40 and whose KL blows up with it. */
function sb3Run(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const lines = [
    'time/total_timesteps,train/learning_rate,train/approx_kl,train/value_loss,rollout/ep_rew_mean',
  ];
  for (let i = 0; i < 80; i++) {
    const lr = i >= 40 ? 0.03 : 0.0003;
    const kl = i >= 40 ? 0.4 + 0.01 * Math.sin(i) : 0.01 + 0.001 * Math.sin(i);
    lines.push(`${(i + 1) * 2048},${lr},${kl},${5 + 0.3 * Math.cos(i)},${100 + 3 * Math.sin(i * 0.7)}`);
  }
  writeFileSync(join(dir, 'progress.csv'), lines.join('\n') + '\n');
}

describe('an incident snapshot shows what changed', () => {
  test('the KL alert of a learning rate ×100 names it; report.md lists it and the figure draws it second', async () => {
    const root = tmp('rlwatch-comovers-');
    sb3Run(join(root, 'ppo_lr'));
    const replay = await replayAlerts(root, DEFAULT_SETTINGS);
    try {
      const kl = replay.list().find((a) => a.rule === 'kl-above-target')!;
      expect(kl.changed?.[0]).toMatchObject({ tag: 'train/learning_rate', step: 41 * 2048 });
      expect(kl.message).toContain(`train/learning_rate ×100 at step ${41 * 2048}`);
      const run = replay.workspace.listRuns().find((r) => r.run === kl.run)!;
      const snap = await writeIncident({
        alert: kl,
        root: replay.root,
        out: tmp('rlwatch-comovers-out-'),
        reader: replay.workspace,
        tags: run.tags,
        config: null,
        thresholds: replay.alerts.service.thresholdsOf(kl.run),
        scope: replay.alerts.service.scopeOf(kl.run),
      });
      expect(snap.failed).toEqual([]);
      const report = readFileSync(snap.report, 'utf8');
      expect(report).toContain('## What changed with it');
      expect(report).toMatch(/\| train\/learning\\_rate \| 83968 \| 0\.0003 \| 0\.03 \| ×100 \|/);
      expect(existsSync(join(snap.folder, 'charts.png'))).toBe(true);
      // The figure's second panel is the learning rate, titled with how it moved.
      expect(report).toMatch(
        /\[charts\.png\]\(charts\.png\): train\/approx\\_kl, train\/learning\\_rate ×100 at step 83968,/,
      );
    } finally {
      await replay.close();
    }
  });

  test('the figure: the alert tag, then its co-movers (titled with how they moved), then the related roles', () => {
    const s = (n: number) => [{ length: n }] as never;
    const series = new Map([
      ['approx_kl', s(10)],
      ['lr', s(10)],
      ['reward', s(10)],
      ['entropy', s(10)],
    ]);
    const changed = [{ tag: 'lr', step: 5, value: 0.03, baseline: 0.0003, ratio: 100 }];
    expect(incidentTags({ rule: 'kl-above-target' as RuleId, tag: 'approx_kl', changed }, series)).toEqual([
      'approx_kl',
      'lr',
      'entropy',
      'reward',
    ]);
  });
});
