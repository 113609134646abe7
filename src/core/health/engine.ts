// The alert engine: feeds raw points per run/tag through the rules and emits deduplicated alert transitions.
//
// Pure and injectable: the clock is a function, there are no timers and no IO (an AlertSink is
// called for persistence). Per-tag state is the rules' bounded windows, never the whole history.

import { classifyTag, type Role, type TagClass } from '../../shared/catalog';
import { POINT_RULES, type Level, type PointRule, type RuleContext } from './rules';
import { RULE_ADVICE } from './advice';
import { alertId, parseAlertId } from './alert-id';
import { median } from './stats';
import { DEFAULT_THRESHOLDS, type Thresholds } from './thresholds';
import type { Alert, AlertSink, AlertTransition, RuleId, Severity } from './types';

export interface HealthEngineOptions {
  /** ms since epoch; injected so tests (and replays) are deterministic. */
  clock: () => number;
  sink?: AlertSink;
  /** Thresholds for runs without their own (see setThresholds). */
  thresholds?: Thresholds;
  classify?: (tag: string) => TagClass | null;
}

interface Gate {
  active: Alert | null;
  bad: number;
  crit: number;
  ok: number;
  /** Snooze outlives one incident: a snoozed flapping alert stays quiet until the time. */
  snoozedUntil: number | null;
}

interface RuleSlot {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each slot pairs a rule with its own state
  rule: PointRule<any>;
  state: unknown;
  gateId: string;
}

interface TagState {
  cls: TagClass | null;
  epochLevel: boolean;
  lastStep: number;
  slots: RuleSlot[];
}

interface RunState {
  tags: Map<string, TagState>;
  thresholds: Thresholds | null;
  finished: boolean;
  lastStep: number;
  lastTrainingWall: number;
  /** Clock time of the last arrival and the gaps between distinct arrivals (for stall detection). */
  lastArrival: number | null;
  gaps: number[];
  /** The run's first tag per role: run-level rules (reward plateau, the combined signals) read only it, so a
   * run logging its reward under four names gets one plateau alert, not four, and no mixed-up medians. */
  primary: Map<Role, string>;
  /** Per-run summaries the combined (seed 004 §7) rules read. */
  temperature: number[];
  reward: number[];
  rewardBest: number;
  clip: number[];
  clipNonZero: boolean;
}

const TRAINING_GROUPS = new Set(['Reward', 'Loss', 'Policy']);
/** Rules about the run as a whole: evaluated on the run's primary tag of their role only. */
const RUN_LEVEL_RULES = new Set<RuleId>(['reward-plateau']);
/** Arrivals closer than this are one batch (a reader delivers a file's new points together). */
const SAME_ARRIVAL_MS = 1000;

export class HealthEngine {
  private readonly runs = new Map<string, RunState>();
  private readonly gates = new Map<string, Gate>();
  private readonly classify: (tag: string) => TagClass | null;

  constructor(private readonly opts: HealthEngineOptions) {
    this.classify = opts.classify ?? classifyTag;
  }

  /** Thresholds for one run (from resolveThresholds); applies to points fed from now on. */
  setThresholds(run: string, th: Thresholds): void {
    this.run(run).thresholds = th;
  }

  /** A finished run (progress 100 %, user closed it) must not be reported as stalled. */
  /** Training activity seen elsewhere (another run) at `wallTime` seconds: rules of `run` that only matter
   * while training (an idle GPU) treat it as active. Used for the live-samples pseudo-run. */
  noteTraining(run: string, wallTime: number): void {
    const r = this.run(run);
    if (Number.isFinite(wallTime)) r.lastTrainingWall = Math.max(r.lastTrainingWall, wallTime);
  }

  setFinished(run: string, finished = true): AlertTransition[] {
    const r = this.run(run);
    r.finished = finished;
    return finished
      ? this.gateLevel(
          alertId(run, 'stalled-run', null),
          r,
          'stalled-run',
          null,
          r.lastStep,
          0,
          { kind: 'ok' },
          1,
          1,
        )
      : [];
  }

  /** Forget a run: its active alerts are cleared (so raised/cleared still alternate). */
  removeRun(run: string): AlertTransition[] {
    const out: AlertTransition[] = [];
    const now = this.opts.clock();
    for (const [id, g] of this.gates) {
      if (g.active && g.active.run === run) out.push(this.clear(id, g, g.active.step, NaN, now));
    }
    for (const [id, g] of this.gates) if (!g.active && parseAlertId(id)?.run === run) this.gates.delete(id);
    this.runs.delete(run);
    return out;
  }

  feed(run: string, tag: string, step: number, wallTime: number, value: number): AlertTransition[] {
    const out: AlertTransition[] = [];
    this.feedInto(out, run, tag, step, wallTime, value);
    return out;
  }

  /** Points of one tag in order, as columns (what the readers and SeriesDelta carry). */
  feedBatch(
    run: string,
    tag: string,
    steps: ArrayLike<number>,
    wallTimes: ArrayLike<number>,
    values: ArrayLike<number>,
  ): AlertTransition[] {
    const out: AlertTransition[] = [];
    const n = Math.min(steps.length, wallTimes.length, values.length);
    for (let i = 0; i < n; i++) this.feedInto(out, run, tag, steps[i]!, wallTimes[i]!, values[i]!);
    return out;
  }

  /** Time-based rules (stalled run). Call it on a timer; `now` defaults to the injected clock. */
  tick(now = this.opts.clock()): AlertTransition[] {
    const out: AlertTransition[] = [];
    for (const [name, r] of this.runs) {
      const id = alertId(name, 'stalled-run', null);
      if (r.finished || r.lastArrival === null || r.gaps.length < 2) continue;
      const th = r.thresholds ?? this.defaults();
      const typical = median(r.gaps);
      const limit = Math.max(th.stall_floor_s * 1000, th.stall_gap_factor * typical);
      const silent = now - r.lastArrival;
      if (silent <= limit) continue;
      const sev: Severity = silent > 3 * limit ? 'critical' : 'warning';
      const msg = `no new data for ${Math.round(silent / 1000)} s (usually every ${Math.round(typical / 1000)} s)`;
      out.push(
        ...this.gateLevel(
          id,
          r,
          'stalled-run',
          null,
          r.lastStep,
          silent / 1000,
          { kind: 'bad', severity: sev, message: msg },
          1,
          1,
          now,
        ),
      );
    }
    return out;
  }

  /** Marks an alert seen: its later transitions do not notify until it clears and a new incident starts. */
  acknowledge(id: string): boolean {
    const g = this.gates.get(id);
    if (!g?.active) return false;
    g.active = { ...g.active, acknowledged: true };
    this.opts.sink?.update(g.active);
    return true;
  }

  /** Mutes notifications for this run+rule+tag until `untilMs` (clock time); null unsnoozes. */
  snooze(id: string, untilMs: number | null): boolean {
    let g = this.gates.get(id);
    if (!g) {
      // Snoozing before the next incident (a snooze restored after a restart, or on a cleared alert)
      // needs somewhere to live until the rule raises again.
      if (untilMs === null || parseAlertId(id) === null) return false;
      g = { active: null, bad: 0, crit: 0, ok: 0, snoozedUntil: untilMs };
      this.gates.set(id, g);
    }
    g.snoozedUntil = untilMs;
    if (g.active) {
      g.active = { ...g.active, snoozedUntil: untilMs };
      this.opts.sink?.update(g.active);
    }
    return true;
  }

  /** Active alerts, critical first, then by raise time. */
  active(run?: string): Alert[] {
    const list: Alert[] = [];
    for (const g of this.gates.values())
      if (g.active && (run === undefined || g.active.run === run)) list.push(g.active);
    return list.sort((a, b) =>
      a.severity === b.severity ? a.raisedAt - b.raisedAt : a.severity === 'critical' ? -1 : 1,
    );
  }

  // --- internals ---

  private defaults(): Thresholds {
    return this.opts.thresholds ?? DEFAULT_THRESHOLDS;
  }

  private run(name: string): RunState {
    let r = this.runs.get(name);
    if (!r) {
      r = {
        tags: new Map(),
        thresholds: null,
        finished: false,
        lastStep: -Infinity,
        lastTrainingWall: -Infinity,
        lastArrival: null,
        gaps: [],
        primary: new Map(),
        temperature: [],
        reward: [],
        rewardBest: -Infinity,
        clip: [],
        clipNonZero: false,
      };
      this.runs.set(name, r);
    }
    return r;
  }

  private tagState(run: string, r: RunState, tag: string): TagState {
    let t = r.tags.get(tag);
    if (!t) {
      const cls = this.classify(tag);
      const epochLevel = /^epoch[/_]/i.test(tag);
      const role = cls?.role ?? null;
      if (role !== null && !r.primary.has(role)) r.primary.set(role, tag);
      const isPrimary = role !== null && r.primary.get(role) === tag;
      const slots = POINT_RULES.filter(
        (rule) => rule.applies(role, tag, epochLevel) && (!RUN_LEVEL_RULES.has(rule.id) || isPrimary),
      ).map((rule) => ({
        rule,
        state: rule.init(),
        gateId: alertId(run, rule.id, tag),
      }));
      t = { cls, epochLevel, lastStep: -Infinity, slots };
      r.tags.set(tag, t);
    }
    return t;
  }

  private feedInto(
    out: AlertTransition[],
    run: string,
    tag: string,
    step: number,
    wallTime: number,
    raw: number,
  ): void {
    const now = this.opts.clock();
    const r = this.run(run);
    this.arrival(out, run, r, now);
    const t = this.tagState(run, r, tag);
    if (step < t.lastStep) {
      // Restart from a checkpoint: the windows describe a timeline that no longer exists. Reset
      // them (and the streak counters) instead of reading the jump as a fault; active alerts stay
      // until the new timeline clears them.
      for (const s of t.slots) {
        s.state = s.rule.init();
        const g = this.gates.get(s.gateId);
        if (g) g.bad = g.crit = g.ok = 0;
      }
    }
    t.lastStep = step;
    if (step > r.lastStep) r.lastStep = step;
    const value = t.cls?.transform === 'negate' ? -raw : raw;
    const role = t.cls?.role ?? null;
    if (t.cls && TRAINING_GROUPS.has(t.cls.group) && Number.isFinite(wallTime)) {
      r.lastTrainingWall = Math.max(r.lastTrainingWall, wallTime);
    }
    const th = r.thresholds ?? this.defaults();
    const ctx: RuleContext = {
      th,
      tag,
      epochLevel: t.epochLevel,
      trainingActive:
        Number.isFinite(wallTime) && Math.abs(wallTime - r.lastTrainingWall) <= th.training_active_s,
    };
    for (const s of t.slots) {
      const level = s.rule.observe(s.state, value, ctx);
      out.push(
        ...this.gateLevel(
          s.gateId,
          r,
          s.rule.id,
          tag,
          step,
          value,
          level,
          s.rule.raiseAfter,
          s.rule.clearAfter,
          now,
        ),
      );
    }
    if (role !== null && Number.isFinite(value) && r.primary.get(role) === tag)
      this.combined(out, run, r, role, tag, step, value, now);
  }

  private arrival(out: AlertTransition[], run: string, r: RunState, now: number): void {
    if (r.lastArrival !== null && now - r.lastArrival >= SAME_ARRIVAL_MS) {
      r.gaps.push(now - r.lastArrival);
      if (r.gaps.length > 20) r.gaps.shift();
    }
    if (r.lastArrival === null || now - r.lastArrival >= SAME_ARRIVAL_MS) r.lastArrival = now;
    const g = this.gates.get(alertId(run, 'stalled-run', null));
    if (g?.active) out.push(this.clear(alertId(run, 'stalled-run', null), g, r.lastStep, 0, now));
  }

  /** Seed 004 §7's combined signals, read from per-run summaries and the state of other alerts. */
  private combined(
    out: AlertTransition[],
    run: string,
    r: RunState,
    role: Role,
    tag: string,
    step: number,
    v: number,
    now: number,
  ): void {
    const th = r.thresholds ?? this.defaults();
    const push = (arr: number[], cap: number): void => {
      arr.push(v);
      if (arr.length > cap) arr.shift();
    };
    if (role === 'sampling_temperature') push(r.temperature, 5);
    if (role === 'reward') {
      push(r.reward, 10);
      if (r.reward.length >= 10) r.rewardBest = Math.max(r.rewardBest, median(r.reward));
    }
    if (role === 'clip_fraction') {
      push(r.clip, 10);
      if (v !== 0) r.clipNonZero = true;
    }
    const activeOn = (rule: RuleId): Alert | null => {
      for (const g of this.gates.values())
        if (g.active && g.active.run === run && g.active.rule === rule) return g.active;
      return null;
    };
    const level = (cond: boolean, sev: Severity, msg: string): Level =>
      cond ? { kind: 'bad', severity: sev, message: msg } : { kind: 'ok' };

    if (role === 'entropy' || role === 'sampling_temperature') {
      const ent = activeOn('entropy-collapse');
      const temp = r.temperature.length >= 3 ? median(r.temperature) : NaN;
      const cond = ent !== null && temp < th.temperature_min;
      out.push(
        ...this.gateLevel(
          alertId(run, 'entropy-collapse-low-temperature', null),
          r,
          'entropy-collapse-low-temperature',
          ent?.tag ?? tag,
          step,
          temp,
          level(cond, 'warning', `entropy collapsed while sampling temperature is ${temp.toPrecision(3)}`),
          1,
          3,
          now,
        ),
      );
    }
    if (role === 'kl' || role === 'reward') {
      const kl = activeOn('kl-above-target');
      const cur = r.reward.length >= 10 ? median(r.reward) : NaN;
      const falling = cur < r.rewardBest - 0.1 * Math.max(Math.abs(r.rewardBest), 0.1);
      const cond = kl !== null && falling;
      out.push(
        ...this.gateLevel(
          alertId(run, 'kl-high-reward-falling', null),
          r,
          'kl-high-reward-falling',
          kl?.tag ?? tag,
          step,
          kl?.value ?? v,
          level(
            cond,
            'warning',
            `KL above target while reward fell to ${cur.toPrecision(3)} from ${r.rewardBest.toPrecision(3)}`,
          ),
          // Reward medians are noisy around the fall line: more evidence both ways than the others.
          3,
          20,
          now,
        ),
      );
    }
    if (role === 'clip_fraction' || role === 'reward') {
      const plateau = activeOn('reward-plateau');
      const clip = r.clip.length >= 5 ? median(r.clip) : NaN;
      const cond = plateau !== null && r.clipNonZero && clip < 0.02;
      out.push(
        ...this.gateLevel(
          alertId(run, 'clip-near-zero-slow-learning', null),
          r,
          'clip-near-zero-slow-learning',
          tag,
          step,
          clip,
          level(cond, 'warning', `clip fraction ${clip.toPrecision(2)} near zero while reward has plateaued`),
          1,
          3,
          now,
        ),
      );
    }
  }

  /**
   * The hysteresis gate shared by all rules: raise after `raiseAfter` consecutive bad levels,
   * escalate after as many consecutive critical ones, clear after `clearAfter` consecutive ok.
   */
  private gateLevel(
    id: string,
    _r: RunState,
    rule: RuleId,
    tag: string | null,
    step: number,
    value: number,
    level: Level,
    raiseAfter: number,
    clearAfter: number,
    now = this.opts.clock(),
  ): AlertTransition[] {
    let g = this.gates.get(id);
    if (!g) {
      // Gates exist only once a rule has been bad: healthy tags cost no entries.
      if (level.kind !== 'bad') return [];
      g = { active: null, bad: 0, crit: 0, ok: 0, snoozedUntil: null };
      this.gates.set(id, g);
    }
    if (level.kind === 'hold') {
      g.bad = g.crit = g.ok = 0;
      return [];
    }
    if (level.kind === 'ok') {
      g.bad = g.crit = 0;
      g.ok++;
      return g.active && g.ok >= clearAfter ? [this.clear(id, g, step, value, now)] : [];
    }
    g.ok = 0;
    g.bad++;
    g.crit = level.severity === 'critical' ? g.crit + 1 : 0;
    const run = parseAlertId(id)!.run;
    if (!g.active) {
      if (g.bad < raiseAfter) return [];
      const severity: Severity = g.crit >= raiseAfter ? 'critical' : 'warning';
      const alert: Alert = {
        id,
        rule,
        severity,
        run,
        tag,
        step,
        value,
        message: level.message,
        advice: RULE_ADVICE[rule],
        raisedAt: now,
        acknowledged: false,
        snoozedUntil: g.snoozedUntil,
      };
      g.active = alert;
      return [this.emit({ kind: 'raised', alert, notify: this.notifies(g, now) })];
    }
    if (g.active.severity === 'warning' && g.crit >= raiseAfter) {
      g.active = { ...g.active, severity: 'critical', step, value, message: level.message };
      return [
        this.emit({ kind: 'escalated', alert: g.active, from: 'warning', notify: this.notifies(g, now) }),
      ];
    }
    return [];
  }

  private notifies(g: Gate, now: number): boolean {
    const snoozed = g.snoozedUntil !== null && now < g.snoozedUntil;
    return !snoozed && !(g.active?.acknowledged ?? false);
  }

  private clear(_id: string, g: Gate, step: number, value: number, now: number): AlertTransition {
    const alert = g.active!;
    const notify = this.notifies(g, now);
    g.active = null;
    g.bad = g.crit = g.ok = 0;
    return this.emit({ kind: 'cleared', alert, step, value, at: now, notify });
  }

  private emit(t: AlertTransition): AlertTransition {
    this.opts.sink?.record(t);
    return t;
  }
}
