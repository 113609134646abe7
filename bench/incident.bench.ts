// Headless incident snapshot of a big run (default 40 tags × 100k steps): replay time, snapshot time and size, peak RSS.
// Run: npm run bench incident   (env: TAGS, STEPS)

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeIncident } from '../src/core/export/incident';
import { findIncident, replayAlerts } from '../src/core/watch/replay-incident';
import { DEFAULT_SETTINGS } from '../src/shared/domain';
import { writeIncidentRun } from './lib/incident-run';
import { envNumber, fmtBytes } from './lib/log-folder';

const TAGS = envNumber('TAGS', 40);
const STEPS = envNumber('STEPS', 100_000);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-bench-incident-'));
  try {
    writeIncidentRun(dir, TAGS, STEPS);

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
