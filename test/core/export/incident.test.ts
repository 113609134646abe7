// Incident snapshots: the report (rule, threshold origin, exact value, advice), the window CSV (exactly the steps in
// range, every tag), the figure, the window's bound, and alert ids that are the same in the app, watch and export.

import { parse } from 'csv-parse/sync';
import { loadImage } from '@napi-rs/canvas';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AppCore } from '../../../src/core/app/app-core';
import { startDemo } from '../../../src/core/demo/demo-writer';
import { ExportUsageError } from '../../../src/core/export/export-run';
import { incidentTags } from '../../../src/core/export/incident-figure';
import {
  codeSpan,
  configEntries,
  incidentReport,
  mdText,
  MAX_CONFIG_ENTRIES,
} from '../../../src/core/export/incident-report';
import { incidentWindow, MAX_WINDOW_POINTS, type ViewReader } from '../../../src/core/export/incident-window';
import { writeIncident } from '../../../src/core/export/incident';
import { ruleAdvice, type RuleId } from '../../../src/core/health';
import { openStore } from '../../../src/core/store';
import { createWatchAlerts } from '../../../src/core/watch/watch-alerts';
import type { AlertLine } from '../../../src/core/watch/watch-lines';
import { WatchSession } from '../../../src/core/watch/watch-session';
import { incidentAlias } from '../../../src/shared/incident-alias';
import {
  findIncident,
  replayAlerts,
  snapshotHeadless,
  UnknownAlertError,
  type AlertReplay,
} from '../../../src/core/watch/replay-incident';
import { createWorkspace } from '../../../src/core/workspace/create';
import { DEFAULT_SETTINGS, type AlertInfo, type SeriesWindow } from '../../../src/shared/domain';
import { tempDirs } from '../../helpers/temp-dirs';

const tmp = tempDirs();

let demo: string;
let replay: AlertReplay;
/** The demo's KL incident: run, rule, quantity and onset step (found in the replay, checked below). */
let KL: string;

beforeAll(async () => {
  demo = join(tmp('rlwatch-incident-'), 'demo');
  await startDemo({ dir: demo, steps: 400, rateHz: 1000, startWallTime: 1_700_000_000 }).done;
  replay = await replayAlerts(demo, DEFAULT_SETTINGS);
  KL = replay.list().find((a) => a.rule === 'kl-above-target')!.id;
  expect(JSON.parse(KL)).toEqual(['ppo_demo', 'kl-above-target', 'kl', expect.any(Number)]);
}, 60_000);

afterAll(async () => {
  await replay?.close();
});

/** Every point of a tag's view with step in [min, max], read independently of the snapshot (whole view, not downsampled). */
function viewPoints(run: string, tag: string, min: number, max: number): { step: number; value: number }[] {
  const w = replay.workspace.getWindow(run, tag, { pixels: 1e7 })!;
  expect(w.downsampled).toBe(false);
  const out: { step: number; value: number }[] = [];
  for (let i = 0; i < w.steps.length; i++)
    if (w.steps[i]! >= min && w.steps[i]! <= max) out.push({ step: w.steps[i]!, value: w.values[i]! });
  return out;
}

async function snapshot(alert: AlertInfo, out: string, settings = DEFAULT_SETTINGS) {
  const r = settings === DEFAULT_SETTINGS ? replay : await replayAlerts(demo, settings);
  try {
    const run = r.workspace.listRuns().find((x) => x.run === alert.run)!;
    return await writeIncident({
      // Other thresholds make another incident (its onset step, so its id, can differ): the same rule's.
      alert: r === replay ? alert : r.list().find((a) => a.run === alert.run && a.rule === alert.rule)!,
      root: r.root,
      out,
      reader: r.workspace,
      tags: run.tags,
      config: r.workspace.configOf(alert.run),
      thresholds: r.alerts.service.thresholdsOf(alert.run),
      scope: r.alerts.service.scopeOf(alert.run),
    });
  } finally {
    if (r !== replay) await r.close();
  }
}

describe('the incident snapshot of the demo KL alert', () => {
  test('report: id, rule and title, severity, exact value, threshold with its origin, advice for the run', async () => {
    const alert = findIncident(replay.list(), KL);
    const out = tmp('rlwatch-incident-out-');
    const snap = await snapshot(alert, out);
    expect(snap.failed).toEqual([]);
    expect(snap.folder).toBe(join(out, `incident-kl-above-target-ppo_demo-step${alert.step}`));
    const report = readFileSync(snap.report, 'utf8');
    expect(report).toContain(`| Alert id | \`${KL}\` |`);
    expect(report).toContain('| Rule | kl-above-target (KL above target) |');
    expect(report).toContain(`| Severity | ${alert.severity} |`);
    expect(report).toContain(`| Step | ${alert.step} |`);
    // Exact: the text parses back to the very value the alert carries.
    const value = /\| Value \| (\S+) \|/.exec(report)![1]!;
    // A float32 (the demo's event file) is written as its shortest float32 text: it parses back as a float32.
    expect(Math.fround(Number(value))).toBe(alert.value);
    expect(value.length).toBeLessThanOrEqual(12);
    // The demo's config.json sets target_kl: the origin names it, as the chart's info tip does.
    expect(report).toContain('| Threshold | target_kl 0.02 (run config: target\\_kl) |');
    const advice = ruleAdvice('kl-above-target', replay.alerts.service.scopeOf('ppo_demo'));
    expect(advice).not.toBe('');
    expect(report).toContain(advice);
    expect(report).toMatch(/\| kl\\_coef \| 0\.1 \|/);
    // Headless, no live samples: the run's own system metrics at the alert step.
    expect(report).toMatch(/\| System\/GPU\\_Utilization \| \d+ \| [\d.]+ \|/);
    for (const f of ['window.csv', 'charts.png']) expect(report).toContain(`[${f}](${f})`);
  });

  test('window.csv holds exactly the points with step in [step − W, step + W] of every tag, numbers exact', async () => {
    const alert = findIncident(replay.list(), KL);
    const snap = await snapshot(alert, tmp('rlwatch-incident-out-'));
    // W = 10 % of the run's step range (0–400).
    expect(snap.window).toEqual({ min: alert.step - 40, max: alert.step + 40 });
    const rows = parse(readFileSync(join(snap.folder, 'window.csv')), { columns: true }) as {
      run: string;
      tag: string;
      step: string;
      value: string;
    }[];
    const tags = replay.workspace.listRuns().find((r) => r.run === 'ppo_demo')!.tags;
    let compared = 0;
    for (const tag of tags) {
      const expected = viewPoints('ppo_demo', tag, snap.window.min, snap.window.max);
      const got = rows.filter((r) => r.tag === tag);
      expect(got.map((r) => Number(r.step))).toEqual(expected.map((p) => p.step));
      // A tag whose values are all float32 is written as float32 text (shortest, parses back to the same
      // float32); any other tag as float64's own shortest text.
      const f32 = expected.every((p) => Object.is(Math.fround(p.value), p.value) || Number.isNaN(p.value));
      got.forEach((r, i) => {
        const parsed = f32 ? Math.fround(Number(r.value)) : Number(r.value);
        expect(Object.is(parsed, expected[i]!.value)).toBe(true);
      });
      compared += got.length;
    }
    expect(compared).toBe(rows.length);
    expect(new Set(rows.map((r) => r.tag)).size).toBeGreaterThan(10);
    expect(rows.every((r) => r.run === 'ppo_demo')).toBe(true);
  });

  test('the figure decodes at 1600×900 with KL, entropy and reward; a user setting is worded as such', async () => {
    const alert = findIncident(replay.list(), KL);
    const snap = await snapshot(alert, tmp('rlwatch-incident-out-'), {
      ...DEFAULT_SETTINGS,
      thresholds: { target_kl: 0.03 },
    });
    const png = await loadImage(readFileSync(join(snap.folder, 'charts.png')));
    expect([png.width, png.height]).toEqual([1600, 900]);
    const report = readFileSync(snap.report, 'utf8');
    expect(report).toContain('| Threshold | target_kl 0.03 (your setting) |');
    expect(report).toMatch(/\[charts\.png\]\(charts\.png\): approx\\_kl, entropy, [^,]*reward around/i);
  });

  test('a catalog default is worded as such (reward variance)', async () => {
    // (The clip fraction that rises with the demo's KL blow-up is a symptom of the KL incident, not its own alert.)
    const variance = replay.list().find((a) => a.rule === 'reward-variance-high')!;
    expect(variance).toBeDefined();
    const report = readFileSync((await snapshot(variance, tmp('rlwatch-incident-out-'))).report, 'utf8');
    expect(report).toContain('| Threshold | reward_variance_max 0.01 (catalog default) |');
  });

  test('never into the folder read; a folder that cannot be made fails every file, named, without throwing', async () => {
    const alert = findIncident(replay.list(), KL);
    await expect(snapshot(alert, join(demo, 'snapshots'))).rejects.toBeInstanceOf(ExportUsageError);
    expect(existsSync(join(demo, 'snapshots'))).toBe(false);
    const blocked = join(tmp('rlwatch-incident-out-'), 'file');
    writeFileSync(blocked, 'x');
    const snap = await snapshot(alert, blocked);
    expect(snap.written).toEqual([]);
    expect(snap.failed.map((f) => f.path.split('/').pop()).sort()).toEqual([
      'charts.png',
      'report.md',
      'window.csv',
    ]);
    expect(snap.failed[0]!.message).toMatch(/cannot create .*(ENOTDIR|EEXIST)/);
  });

  test('headless, an --out inside the folder read is refused before the replay (not an unknown-id error)', async () => {
    await expect(
      snapshotHeadless(demo, '["ppo_demo","kl-above-target","nope"]', {
        out: join(demo, 'snapshots'),
        settings: DEFAULT_SETTINGS,
      }),
    ).rejects.toBeInstanceOf(ExportUsageError);
    expect(existsSync(join(demo, 'snapshots'))).toBe(false);
  });

  test('a file that cannot be written is named with its reason; the others are written', async () => {
    const alert = findIncident(replay.list(), KL);
    const out = tmp('rlwatch-incident-out-');
    const first = await snapshot(alert, out);
    // A folder where the figure goes: the rename onto it fails, the report and the CSV are still replaced.
    rmSync(join(first.folder, 'charts.png'));
    mkdirSync(join(first.folder, 'charts.png', 'x'), { recursive: true });
    const snap = await snapshot(alert, out);
    expect(snap.failed).toEqual([
      {
        path: join(snap.folder, 'charts.png'),
        message: expect.stringMatching(/^cannot write .*charts\.png: /),
      },
    ]);
    expect(snap.written.map((f) => f.path.split('/').pop())).toEqual(['report.md', 'window.csv']);
    expect(readdirSync(snap.folder).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

describe('alert ids', () => {
  test('an unknown id names the run’s alert ids', () => {
    const list = replay.list();
    const err = (() => {
      try {
        findIncident(list, '["ppo_demo","kl-above-target","nope",1]');
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(UnknownAlertError);
    expect((err as Error).message).toContain(KL);
    expect((err as UnknownAlertError).known.length).toBeLessThanOrEqual(20);
  });

  test('export --incident takes the short alias listed beside the id: the same incident as its full id', async () => {
    const byAlias = await snapshotHeadless(demo, incidentAlias(KL), {
      out: tmp('rlwatch-incident-alias-'),
      settings: DEFAULT_SETTINGS,
    });
    const byId = await snapshotHeadless(demo, KL, {
      out: tmp('rlwatch-incident-id-'),
      settings: DEFAULT_SETTINGS,
    });
    expect(byAlias.folder.split('/').pop()).toBe(byId.folder.split('/').pop());
    expect(readFileSync(byAlias.report, 'utf8')).toBe(readFileSync(byId.report, 'utf8'));
  });

  test('an incident replays only the run its id names: that run’s alerts as the whole folder’s replay has them', async () => {
    const parent = tmp('rlwatch-incident-two-');
    for (const run of ['a', 'b']) cpSync(join(demo, 'ppo_demo'), join(parent, run), { recursive: true });
    const whole = await replayAlerts(parent, DEFAULT_SETTINGS);
    const one = await replayAlerts(parent, DEFAULT_SETTINGS, (run) => run === 'b');
    try {
      expect(one.workspace.listRuns().map((r) => r.run)).toEqual(['b']);
      // The clock's times differ between two replays; what the rules decided does not.
      const decided = (list: AlertInfo[]) => list.map(({ raisedAt: _r, clearedAt: _c, ...a }) => a);
      const ofB = whole.list().filter((a) => a.run === 'b');
      expect(ofB.length).toBeGreaterThan(0);
      expect(decided(one.list())).toEqual(decided(ofB));
      // Headless, the snapshot of b's incident is the whole replay's, file for file.
      const id = ofB.find((a) => a.rule === 'kl-above-target')!.id;
      const alone = await snapshotHeadless(parent, id, {
        out: tmp('rlwatch-incident-one-'),
        settings: DEFAULT_SETTINGS,
      });
      const run = whole.workspace.listRuns().find((r) => r.run === 'b')!;
      const fromWhole = await writeIncident({
        alert: findIncident(whole.list(), id),
        root: whole.root,
        out: tmp('rlwatch-incident-whole-'),
        reader: whole.workspace,
        tags: run.tags,
        config: whole.workspace.configOf('b'),
        thresholds: whole.alerts.service.thresholdsOf('b'),
        scope: whole.alerts.service.scopeOf('b'),
      });
      expect(alone.written.map((f) => f.bytes)).toEqual(fromWhole.written.map((f) => f.bytes));
      for (const [k, f] of alone.written.entries())
        expect(readFileSync(f.path).equals(readFileSync(fromWhole.written[k]!.path))).toBe(true);
      // An id of no run of the folder still fails listing the folder's ids (read whole).
      await expect(
        snapshotHeadless(parent, '["c","kl-above-target","kl",1]', {
          out: tmp('rlwatch-incident-none-'),
          settings: DEFAULT_SETTINGS,
        }),
      ).rejects.toThrow(/"a","kl-above-target"/);
    } finally {
      await one.close();
      await whole.close();
    }
  });

  test('the ids export finds are the ones `watch --json` prints and the app lists', async () => {
    const ws = createWorkspace({ watch: false });
    const alerts = createWatchAlerts({
      root: demo,
      configOf: (run) => ws.configOf(run),
      runs: () => ws.listRuns().map((r) => r.run),
      settings: DEFAULT_SETTINGS,
    });
    const lines: AlertLine[] = [];
    const session = new WatchSession({
      workspace: ws,
      emit: (l) => void (l.type === 'alert' && lines.push(l)),
      alerts,
    });
    await ws.open(demo);
    session.close();
    await ws.close();
    const exported = new Set(replay.list().map((a) => a.id));
    expect(new Set(lines.map((l) => l.id))).toEqual(exported);

    const core = new AppCore({
      host: { mode: 'serve', version: 't', allowOpenFolder: true },
      store: openStore({ path: null }),
      createWorkspace: () => createWorkspace({ watch: false }),
      tickMs: 3_600_000,
    });
    try {
      await core.open(demo);
      expect(new Set(core.alerts().map((a) => a.id))).toEqual(exported);
    } finally {
      await core.dispose();
    }
  });
});

describe('pure parts', () => {
  test('the report cites the float32 as its shortest text, the statistic judged, and the clearing point’s own time', () => {
    const alert: AlertInfo = {
      id: '["r","clip-fraction-out-of-band","clip_fraction",3584]',
      rule: 'clip-fraction-out-of-band',
      severity: 'warning',
      run: 'r',
      tag: 'train/clip_fraction',
      tags: ['train/clip_fraction', 'history/train/clip_fraction'],
      step: 3584,
      wallTime: 1_700_000_000,
      value: Math.fround(0.0361328125),
      statistic: { kind: 'median', fromStep: 1536, toStep: 3584, value: 0.4 },
      message: 'm',
      advice: null,
      raisedAt: 1_800_000_000_000,
      acknowledged: false,
      snoozedUntil: null,
      active: false,
      clearedAt: 1_900_000_000_000,
      clearedStep: 4096,
      clearedWallTime: 1_700_000_100,
    };
    const report = incidentReport({
      alert,
      wallTimeMs: 1_700_000_000_000,
      thresholds: {},
      advice: '',
      config: null,
      system: null,
      window: { min: 3000, max: 4000, halfWidth: 500, runSteps: { min: 0, max: 5000 } },
      files: [],
    });
    expect(report).toContain('| Value | 0.036132813 |');
    expect(report).toContain('| Judged on | median 0.4 over steps 1536 to 3584 |');
    expect(report).toContain('| Tags | train/clip\\_fraction, history/train/clip\\_fraction |');
    // Written at the clearing point's wall time, not when the export ran (clearedAt, a replay's clock).
    expect(report).toContain(
      `| State | cleared at step 4096 (written ${new Date(1_700_000_100_000).toISOString()}) |`,
    );
  });

  /** A view with one point per step 0..n-1 for each tag. */
  const denseReader = (n: number): ViewReader => ({
    getWindow: (_run, _tag, q) => {
      const lo = Math.max(0, Math.ceil(q.xMin ?? 0));
      const hi = Math.min(n - 1, Math.floor(q.xMax ?? n - 1));
      return {
        inRange: Math.max(0, hi - lo + 1),
        extent: { stepMin: 0, stepMax: n - 1, wallMin: 0, wallMax: 0 },
      } as SeriesWindow;
    },
  });

  test('the window is 10 % of the run each side, halved until all tags together hold at most the cap', () => {
    expect(incidentWindow(denseReader(1001), 'r', ['a'], 500).halfWidth).toBe(100);
    const big = incidentWindow(denseReader(20_000_001), 'r', ['a', 'b', 'c'], 10_000_000);
    expect(3 * (2 * big.halfWidth + 1)).toBeLessThanOrEqual(MAX_WINDOW_POINTS);
    expect(3 * (4 * big.halfWidth + 1)).toBeGreaterThan(MAX_WINDOW_POINTS);
    expect(incidentWindow(denseReader(1001), 'r', ['a'], 500, 7)).toMatchObject({ min: 493, max: 507 });
    // Never past the run's own steps: an alert at step 5 of 0–1000 reads 0 to 105, not −95 to 105.
    expect(incidentWindow(denseReader(1001), 'r', ['a'], 5)).toMatchObject({
      min: 0,
      max: 105,
      halfWidth: 100,
    });
  });

  test('related charts: the alert tag, then each related role’s tag with the most points', () => {
    const s = (n: number) => [{ length: n }] as never;
    const series = new Map([
      ['approx_kl', s(10)],
      ['Epoch/AvgReward', s(2)],
      ['reward', s(10)],
      ['entropy', s(10)],
      ['loss', s(10)],
    ]);
    expect(incidentTags({ rule: 'kl-above-target' as RuleId, tag: 'approx_kl' }, series)).toEqual([
      'approx_kl',
      'entropy',
      'reward',
    ]);
    expect(incidentTags({ rule: 'kl-high-reward-falling' as RuleId, tag: null }, series)).toEqual([
      'approx_kl',
      'reward',
      'entropy',
    ]);
  });

  test('text from files is escaped in Markdown and config is bounded', () => {
    expect(mdText('a|b\n`x`\u001b[2J\u202e')).toBe('a\\|b\\n\\`x\\`\\e\\[2J\\u202e');
    // An id stays copyable: fenced past its own backticks.
    expect(codeSpan('["r`` x","kl-above-target",null]')).toBe('``` ["r`` x","kl-above-target",null] ```');
    expect(codeSpan('["r","non-finite",null]')).toBe('`["r","non-finite",null]`');
    const config = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
    const { entries, more } = configEntries({ ...config, nested: { lr: 0.1 } });
    expect(entries.length).toBe(MAX_CONFIG_ENTRIES);
    expect(entries[0]).toEqual(['nested.lr', '0.1']);
    expect(more).toBe(101 - MAX_CONFIG_ENTRIES);
  });
});
