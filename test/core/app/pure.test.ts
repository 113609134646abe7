// The app core's pure parts: notification limiter, tray model, renderer feed, epoch summary, settings parsing.

import { describe, expect, test } from 'vitest';
import type { AlertInfo, AppNotification, RunInfo, SeriesDelta } from '../../../src/shared/domain';
import { AppBus } from '../../../src/core/app/bus';
import { epochSummary } from '../../../src/core/app/epoch-summary';
import type { KeyNumbers } from '../../../src/core/app/key-numbers';
import { NotificationLimiter } from '../../../src/core/alerts/notify-limiter';
import { BULK_DELTA_POINTS, forwardToRenderer, toRendererMessage } from '../../../src/core/app/renderer-feed';
import { applySettingsPatch, DEFAULT_SETTINGS, parseSettings } from '../../../src/core/app/settings';
import { userThresholds } from '../../../src/core/alerts/user-thresholds';
import { TagTracker } from '../../../src/core/app/tag-tracker';
import { buildTrayModel } from '../../../src/core/app/tray-model';

const alert = (over: Partial<AlertInfo> = {}): AlertInfo => ({
  tags: [],
  wallTime: null,
  statistic: null,
  clearedWallTime: null,
  id: JSON.stringify(['r', 'kl-above-target', 'approx_kl']),
  rule: 'kl-above-target',
  severity: 'warning',
  run: 'r',
  tag: 'approx_kl',
  step: 155,
  value: 0.03,
  message: 'KL 0.03 above target 0.02',
  advice: 'increase kl_coef',
  raisedAt: 0,
  acknowledged: false,
  snoozedUntil: null,
  active: true,
  clearedAt: null,
  clearedStep: null,
  ...over,
});

const delta = (run: string, tag: string, n: number, from = 0, value = (i: number) => i): SeriesDelta => ({
  run,
  tag,
  from,
  steps: Float64Array.from({ length: n }, (_, i) => from + i),
  wallTimes: Float64Array.from({ length: n }, (_, i) => 1000 + from + i),
  values: Float64Array.from({ length: n }, (_, i) => value(from + i)),
});

describe('NotificationLimiter', () => {
  test('one per run per window; the excess becomes one "N more alerts" when the window ends', () => {
    let now = 0;
    const lim = new NotificationLimiter({ clock: () => now, windowMs: 30_000 });
    expect(lim.offer(alert())).toHaveLength(1);
    now = 1000;
    expect(lim.offer(alert({ rule: 'entropy-collapse', tag: 'entropy' }))).toEqual([]);
    expect(lim.offer(alert({ rule: 'non-finite', tag: 'loss', step: 200 }))).toEqual([]);
    expect(lim.offer(alert({ rule: 'clip-fraction-out-of-band', tag: 'clipfrac' }))).toEqual([]);
    // Another run is not held back by this one.
    expect(lim.offer(alert({ run: 'other' }))).toHaveLength(1);
    expect(lim.heldCount('r')).toBe(3);
    now = 29_999;
    expect(lim.due()).toEqual([]);
    now = 30_000;
    const [summary, ...rest] = lim.due();
    expect(rest).toEqual([]);
    expect(summary).toMatchObject({
      run: 'r',
      title: '3 more alerts — r',
      focus: { run: 'r', tag: 'clipfrac', step: 155 },
    });
    expect(summary!.body).toMatch(/Entropy collapse/);
    // The summary opened a new window.
    now = 31_000;
    expect(lim.offer(alert({ rule: 'stalled-run', tag: null }))).toEqual([]);
    now = 61_000;
    // A single held alert is shown as itself, not as "1 more".
    expect(lim.due()).toMatchObject([{ title: 'Warning: Run stalled — r', focus: { tag: null } }]);
  });

  test('over all runs: a few per minute, then one summary "N more alerts" (5,000 runs raising at once)', () => {
    let now = 0;
    const lim = new NotificationLimiter({ clock: () => now });
    const shown: AppNotification[] = [];
    for (let i = 0; i < 5000; i++) shown.push(...lim.offer(alert({ run: `h:1//run${i}` })));
    // Five (the global budget per minute), not 5,000; the rest are counted, not shown.
    expect(shown.map((n) => n.run)).toEqual([
      'h:1//run0',
      'h:1//run1',
      'h:1//run2',
      'h:1//run3',
      'h:1//run4',
    ]);
    expect(lim.heldCount()).toBe(4995);
    // The per-run windows have passed but the global minute has not: still nothing.
    now = 30_000;
    expect(lim.due()).toEqual([]);
    now = 60_000;
    expect(lim.due()).toEqual([
      {
        run: 'h:1//run4999',
        title: '4995 more alerts — 4995 runs',
        body: 'KL above target',
        focus: { run: 'h:1//run4999', tag: 'approx_kl', step: 155 },
      },
    ]);
    expect(lim.heldCount()).toBe(0);
    // The summary counts against the next minute's budget: four more singles, then held again.
    const next: AppNotification[] = [];
    for (let i = 0; i < 6; i++) next.push(...lim.offer(alert({ run: `other${i}`, rule: `rule-${i}` })));
    expect(next).toHaveLength(4);
    expect(lim.heldCount()).toBe(2);
    now = 120_000;
    expect(lim.due()).toMatchObject([{ title: '2 more alerts — 2 runs', body: 'rule-4, rule-5' }]);
  });

  test('a summary names a few rules, never every rule id a remote made up', () => {
    let now = 0;
    const lim = new NotificationLimiter({ clock: () => now });
    lim.offer(alert());
    for (let i = 0; i < 1000; i++) lim.offer(alert({ rule: `made-up-${i}` }));
    now = 30_000;
    const [s] = lim.due();
    expect(s).toMatchObject({ title: '1000 more alerts — r' });
    expect(s!.body).toBe(
      'made-up-0, made-up-1, made-up-2, made-up-3, made-up-4, made-up-5, made-up-6, made-up-7, …',
    );
  });

  test('a quiet run gets its next alert at once', () => {
    let now = 0;
    const lim = new NotificationLimiter({ clock: () => now });
    lim.offer(alert());
    now = 40_000;
    expect(lim.offer(alert({ severity: 'critical' }))).toMatchObject([
      { title: /^Critical: KL above target/ },
    ]);
  });
  test("a run's critical is shown at once though its warning took the run's slot in the same second", () => {
    let now = 0;
    const lim = new NotificationLimiter({ clock: () => now });
    expect(lim.offer(alert({ rule: 'stalled-run', tag: null }))).toMatchObject([
      { title: 'Warning: Run stalled — r' },
    ]);
    now = 400;
    expect(lim.offer(alert({ rule: 'non-finite', severity: 'critical', tag: 'loss' }))).toMatchObject([
      { title: 'Critical: NaN / Inf value — r', focus: { tag: 'loss' } },
    ]);
    // A second critical within the window waits; the summary names the critical first.
    now = 800;
    expect(lim.offer(alert({ rule: 'entropy-collapse', tag: 'entropy' }))).toEqual([]);
    expect(lim.offer(alert({ rule: 'job-node-silent', severity: 'critical', tag: null }))).toEqual([]);
    expect(lim.heldCount('r')).toBe(2);
    now = 30_400;
    const [s, ...rest] = lim.due();
    expect(rest).toEqual([]);
    // A job rule is titled in words as a run rule is (it was its id: "Critical: job-node-silent — r").
    expect(s!.title).toBe('Critical: Node silent — r (+1 more alert)');
    expect(s!.body).toMatch(/\nAlso: .*, Entropy collapse$/);
    expect(s!.focus).toEqual({ run: 'r', tag: null, step: 155 });
  });

  test('a burst raised together is one notification naming the critical first, then the count', () => {
    const lim = new NotificationLimiter({ clock: () => 0 });
    const shown = lim.offerAll([
      alert({ rule: 'stalled-run', tag: null, message: 'no new step for 2m' }),
      alert({ rule: 'entropy-collapse', tag: 'entropy' }),
      alert({
        rule: 'non-finite',
        severity: 'critical',
        tag: 'loss',
        message: 'loss is NaN',
        advice: 'lower lr',
      }),
      alert({ run: 'other' }),
    ]);
    expect(shown).toEqual([
      {
        run: 'r',
        title: 'Critical: NaN / Inf value — r (+2 more alerts)',
        body: 'loss is NaN\nlower lr\nAlso: Run stalled, Entropy collapse',
        focus: { run: 'r', tag: 'loss', step: 155 },
      },
      expect.objectContaining({ run: 'other', title: 'Warning: KL above target — other' }),
    ]);
    expect(lim.heldCount()).toBe(0);
  });

  test('a flood of warnings over all runs never holds back a critical', () => {
    let now = 0;
    const lim = new NotificationLimiter({ clock: () => now });
    for (let i = 0; i < 100; i++) lim.offer(alert({ run: `w${i}` }));
    expect(lim.heldCount()).toBe(95);
    now = 1000;
    expect(lim.offer(alert({ run: 'c', severity: 'critical' }))).toMatchObject([{ title: /^Critical: / }]);
    // The warnings' summary still comes when the minute has room.
    now = 60_000;
    expect(lim.due()).toMatchObject([{ title: '95 more alerts — 95 runs' }]);
  });
});

describe('tray model', () => {
  const run = (name: string): RunInfo => ({
    run: name,
    sources: [],
    tags: ['approx_kl'],
    points: 10,
    lastEventAt: null,
    fileWrittenAt: null,
    progress: null,
    loaded: true,
    restarts: 0,
    sessions: [],
    worstAlert: null,
    stalled: false,
  });
  const keys = (k: Record<string, KeyNumbers>) => (r: string) => k[r] ?? { step: null, values: {} };

  test('health is the worst active alert over runs; each run lists key numbers and alerts', () => {
    const m = buildTrayModel(
      [run('a'), run('b')],
      [alert({ run: 'a' }), alert({ run: 'b', severity: 'critical', rule: 'non-finite', tag: 'loss' })],
      keys({
        a: {
          step: 412,
          values: { reward: { tag: 'r', value: 0.5312 }, kl: { tag: 'approx_kl', value: 0.031234 } },
        },
      }),
    );
    expect(m.health).toBe('critical');
    expect(m.tooltip).toBe('rlwatch — 2 active alerts (critical)');
    expect(m.runs[0]).toMatchObject({
      name: 'a',
      summary: 'step 412 · reward 0.5312 · KL 0.03123',
      worst: 'warning',
    });
    expect(m.runs[0]!.alerts[0]!.label).toMatch(/kl-above-target \(approx_kl\) at step 155/);
    expect(m.runs[1]).toMatchObject({ summary: '1 tags · 10 points', worst: 'critical' });
    expect(m.runs[1]!.alerts[0]!.focus).toEqual({ run: 'b', tag: 'loss', step: 155 });
  });

  test('a run judged stopped says so first in its item, in words', () => {
    const m = buildTrayModel(
      [{ ...run('a'), stop: { state: 'exited', reason: 'exited before its end' } }, run('b')],
      [],
      keys({ a: { step: 412, values: {} } }),
    );
    expect(m.runs.map((r) => r.summary)).toEqual(['exited · step 412', '1 tags · 10 points']);
  });

  test('no alerts is ok; inactive alerts do not count', () => {
    const m = buildTrayModel([run('a')], [alert({ run: 'a', active: false })], keys({}));
    expect(m.health).toBe('ok');
    expect(m.runs[0]!.alerts).toEqual([]);
    expect(buildTrayModel([], [], keys({})).tooltip).toBe('rlwatch — no runs open');
  });
});

describe('renderer feed', () => {
  test('a delta above the bulk limit becomes a bulk reset; small ones and other events pass', () => {
    const small = delta('r', 'loss', 10);
    expect(toRendererMessage('series.appended', small)).toEqual({ event: 'series.appended', payload: small });
    expect(toRendererMessage('series.appended', delta('r', 'loss', BULK_DELTA_POINTS + 1))).toEqual({
      event: 'series.reset',
      payload: { run: 'r', tag: 'loss', reason: 'bulk' },
    });
    expect(toRendererMessage('series.appended', delta('r', 'loss', BULK_DELTA_POINTS))).toMatchObject({
      event: 'series.appended',
    });
    const notice = { level: 'info' as const, message: 'x' };
    expect(toRendererMessage('app.notice', notice)).toEqual({ event: 'app.notice', payload: notice });
  });

  test('forwardToRenderer subscribes to every push event and unsubscribes', () => {
    const bus = new AppBus();
    const got: string[] = [];
    const off = forwardToRenderer(bus, (m) => got.push(m.event), 3);
    bus.emit('series.appended', delta('r', 't', 4));
    bus.emit('series.appended', delta('r', 't', 2));
    bus.emit('app.focus', { run: 'r', tag: null, step: null });
    expect(got).toEqual(['series.reset', 'series.appended', 'app.focus']);
    expect(bus.listenerCount('system.snapshot')).toBe(1);
    off();
    expect(bus.listenerCount('system.snapshot')).toBe(0);
  });
});

describe('epoch summary (seed 003 style)', () => {
  const tracker = new TagTracker();
  const rewards = [0.2, 0.35, 0.61, 0.58, 0.6];
  const losses = [2.9, 2.4, 2.35, 2.5, 2.38];
  for (let e = 0; e < 5; e++) {
    const at = (tag: string, v: number): void =>
      tracker.observe({
        run: 'r',
        tag,
        from: e,
        steps: new Float64Array([e + 1]),
        wallTimes: new Float64Array([e]),
        values: new Float64Array([v]),
      });
    at('Epoch/AvgReward', rewards[e]!);
    at('Epoch/AvgLoss', losses[e]!);
    at('Epoch/RewardVariance', 0.004);
    at('Performance/Generation_TokensPerSec', 800 + e);
    at('eval/BLEU', 0.25 + e / 100);
    at('System/GPU_Utilization', 80);
  }
  tracker.observe(delta('r', 'learning_rate', 50, 0, () => 1e-5));
  tracker.observe(delta('r', 'Train/Loss', 50, 0, (i) => 3 - i / 50));
  const src = (run: string) => ({
    tags: tracker.tags(run),
    tail: (t: string) => tracker.tail(run, t),
    points: (t: string) => tracker.points(run, t),
  });

  test('training, evaluation and performance sections; best reward and lowest loss with their epochs', () => {
    const s = epochSummary(src('r'))!;
    expect(s.epochs).toBe(5);
    expect(s.sections.map((x) => x.title)).toEqual(['Training Metrics', 'Evaluation Metrics', 'Performance']);
    expect(s.sections[0]!.rows).toEqual([
      { tag: 'Epoch/AvgLoss', value: 2.38 },
      { tag: 'Epoch/AvgReward', value: 0.6 },
      { tag: 'learning_rate', value: 1e-5 },
      { tag: 'Epoch/RewardVariance', value: 0.004 },
    ]);
    expect(s.sections[1]!.rows).toEqual([{ tag: 'eval/BLEU', value: 0.29 }]);
    expect(s.sections[2]!.rows).toEqual([{ tag: 'Performance/Generation_TokensPerSec', value: 804 }]);
    expect(s.bestReward).toEqual({ tag: 'Epoch/AvgReward', value: 0.61, epoch: 3 });
    expect(s.lowestLoss).toEqual({ tag: 'Epoch/AvgLoss', value: 2.35, epoch: 3 });
  });

  test('a delta from an earlier index replaces the points from there on (restart)', () => {
    const t = new TagTracker();
    t.observe(delta('x', 'Epoch/AvgReward', 5));
    t.observe(delta('x', 'Epoch/AvgReward', 2, 3, () => 9));
    expect(t.points('x', 'Epoch/AvgReward')).toEqual({ steps: [0, 1, 2, 3, 4], values: [0, 1, 2, 9, 9] });
    expect(t.tail('x', 'Epoch/AvgReward')).toEqual({ count: 5, lastStep: 4, lastValue: 9 });
  });

  test('no Epoch/* tag, no summary', () => {
    const t = new TagTracker();
    t.observe(delta('x', 'Train/Loss', 5));
    expect(
      epochSummary({ tags: t.tags('x'), tail: (g) => t.tail('x', g), points: (g) => t.points('x', g) }),
    ).toBe(null);
  });
});

describe('settings', () => {
  test('bad stored values fall back to defaults; patches merge; thresholds map to the engine', () => {
    expect(parseSettings(undefined)).toEqual(DEFAULT_SETTINGS);
    expect(
      parseSettings({ theme: 'neon', smoothing: 5, logY: true, thresholds: { target_kl: 0.05, x: 'y' } }),
    ).toEqual({
      ...DEFAULT_SETTINGS,
      logY: true,
      thresholds: { target_kl: 0.05 },
    });
    const next = applySettingsPatch(DEFAULT_SETTINGS, {
      theme: 'dark',
      thresholds: { entropy_min: 0.3, bogus: 1 },
    });
    expect(next).toMatchObject({ theme: 'dark', smoothing: DEFAULT_SETTINGS.smoothing });
    // A stalled-after time the user set is the limit itself; unset (the default), each run's own rhythm judges.
    expect(userThresholds({ ...next, stalledAfterMinutes: 3 })).toEqual({
      entropy_min: 0.3,
      stall_alert_floor_s: 180,
      stall_alert_gap_factor: 0,
    });
    expect(userThresholds(next)).toEqual({ entropy_min: 0.3 });
    expect(parseSettings({ stalledAfterMinutes: 5 }).stalledAfterMinutes).toBe(5);
    expect(parseSettings({ stalledAfterMinutes: 0 }).stalledAfterMinutes).toBeNull();
  });
});
