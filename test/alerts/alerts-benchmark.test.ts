// The CI gate of the alert benchmark (issue 20): bench/scenarios/score.py (the shared scorer, its rule families
// extended to the family kinds) replays every labelled recording —
// the shared dev set and bench/scenarios/recordings — in parallel, in real time, while the built CLI's
// `rlwatch watch --json` watches them, and the summary must be perfect: every incident detected within its
// deadline, no false alarm in a healthy window, no citation error, one alert per incident.
//
// Why all recordings and not a subset: they replay in parallel, so the run takes as long as the longest one plus
// its tail (≈ 5–6 min on the 2-core build VM), whatever their number; a subset would save nothing in time and
// would let a rule regress on the recordings left out. Speed stays 1: `--speed` also scales the stall timing,
// which breaks the crash / hang / restart deadlines. This is the slowest project of `npm test`, well inside CI's
// 90-minute budget.

import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import {
  allRecordings,
  gateFailures,
  missingPrerequisite,
  runScorer,
} from '../../scripts/lib/alerts-scorer.js';

const CLI = join(import.meta.dirname, '..', '..', 'out', 'main', 'cli.js');

test('alert benchmark: recall 1, no late detection, false alarm, citation error or duplicate on every recording', async () => {
  const missing = missingPrerequisite();
  expect(missing, missing ?? '').toBeNull();
  expect(existsSync(CLI), `${CLI} is missing: build first (npx electron-vite build, or npm test)`).toBe(true);
  const recordings = allRecordings();
  expect(recordings.length).toBeGreaterThan(0);
  const out = mkdtempSync(join(tmpdir(), 'rlwatch-alerts-bench-'));
  const r = await runScorer({ recordings, out });
  // The table goes to the log whether the gate passes or not; on failure it is also the assertion's message.
  process.stdout.write(`\n${r.output}\n`);
  expect(r.status, r.output).toBe(0);
  const failures = gateFailures(r.summary);
  expect(failures, `\n${r.output}\nalert benchmark failed: ${failures.join('; ')}`).toEqual([]);
});
