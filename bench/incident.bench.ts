// Headless incident snapshot of a big run (default 40 tags × 100k steps): replay time, snapshot time and size, peak RSS.
// Run: npm run bench incident   (env: TAGS, STEPS)

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeIncident } from '../src/core/export/incident';
import { EventFileWriter } from '../src/core/tfevents/writer';
import { findIncident, replayAlerts } from '../src/core/watch/replay-incident';
import { DEFAULT_SETTINGS } from '../src/shared/domain';
import { envNumber, fmtBytes } from './lib/log-folder';

const TAGS = envNumber('TAGS', 40);
const STEPS = envNumber('STEPS', 100_000);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-bench-incident-'));
  try {
    const run = join(dir, 'runs', 'run1');
    mkdirSync(run, { recursive: true });
    writeFileSync(join(run, 'config.json'), JSON.stringify({ target_kl: 0.02 }));
    const tags = [
      'approx_kl',
      'entropy',
      'reward',
      'loss',
      ...Array.from({ length: TAGS - 4 }, (_, i) => `train/m${i}`),
    ];
    // KL above target for 1% of the run at 60 %: one KL alert.
    const klHigh = (s: number): boolean => s > 0.6 * STEPS && s < 0.61 * STEPS;
    const w = new EventFileWriter(run, { wallTime: 1000 });
    for (let s = 0; s < STEPS; s++) {
      w.scalars(
        s,
        tags.map((tag, k) => ({
          tag,
          value: tag === 'approx_kl' ? (klHigh(s) ? 0.05 : 0.01) : Math.sin(s / 100 + k),
        })),
        'simple',
        1000 + s,
      );
    }
    w.close();

    let t = performance.now();
    const replay = await replayAlerts(join(dir, 'runs'), DEFAULT_SETTINGS);
    const replayMs = performance.now() - t;
    // Ids carry the incident's onset step: the KL incident is found by its rule.
    const kl = replay.list().find((a) => a.run === 'run1' && a.rule === 'kl-above-target');
    if (!kl) throw new Error('no KL alert in the replay');
    const alert = findIncident(replay.list(), kl.id);
    const out = join(dir, 'out');
    mkdirSync(out);
    t = performance.now();
    const snap = await writeIncident({
      alert,
      root: replay.root,
      out,
      reader: replay.workspace,
      tags: replay.workspace.listRuns()[0]!.tags,
      config: replay.workspace.configOf('run1'),
      thresholds: replay.alerts.service.thresholdsOf('run1'),
      scope: replay.alerts.service.scopeOf('run1'),
    });
    const snapMs = performance.now() - t;
    await replay.close();
    console.log(`run: ${TAGS} tags × ${STEPS} steps (${TAGS * STEPS} points, one event file)`);
    console.log(`replay through watch's AlertService: ${replayMs.toFixed(0)} ms`);
    console.log(
      `snapshot: ${snapMs.toFixed(0)} ms; window steps ${snap.window.min}–${snap.window.max}; ` +
        snap.written.map((f) => `${f.path.split('/').pop()} ${fmtBytes(f.bytes)}`).join(', '),
    );
    console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
