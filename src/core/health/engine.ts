// The alert engine: routes raw points per run/tag through the point and combined rules into the alert gates.
//
// Pure and injectable: the clock is a function, there are no timers and no IO (an AlertSink is
// called for persistence). Per-tag state is the rules' bounded windows, never the whole history.

import {
  classifyTag,
  isLlmTag,
  TRAINING_GROUPS,
  type Role,
  type RunScope,
  type TagClass,
} from '../../shared/catalog';
import { COMBINED_RULES, judgeCombined, RunSummary } from './combined-rules';
import { AlertGates, type CitedPoint } from './gates';
import { defaultsNote } from './rule-thresholds';
import { POINT_RULES, type PointRule, type RuleContext } from './rules';
import { ArrivalGaps, STALLED_RUN, TRAINER_EXITED } from './stall';
import { DEFAULT_THRESHOLDS, type ThresholdName, type Thresholds } from './thresholds';
import type { Alert, AlertSink, AlertTransition, RuleId } from './types';

export interface HealthEngineOptions {
  /** ms since epoch; injected so tests (and replays) are deterministic. */
  clock: () => number;
  sink?: AlertSink;
  /** Thresholds for runs without their own (see setThresholds). */
  thresholds?: Thresholds;
  classify?: (tag: string) => TagClass | null;
}

interface RuleSlot {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each slot pairs a rule with its own state
  rule: PointRule<any>;
  state: unknown;
}

interface TagState {
  cls: TagClass | null;
  /** What its alerts are about: its role, else the tag itself. */
  quantity: string;
  /** The tag as messages name it: a negated tag (SB3 `train/entropy_loss` = −entropy) as `−tag`. */
  judgedAs: string;
  epochLevel: boolean;
  lastStep: number;
  slots: RuleSlot[];
}

interface RunState {
  tags: Map<string, TagState>;
  thresholds: Thresholds | null;
  /** Thresholds the user or the run's config set (the rest are defaults or derived from the run). */
  explicit: ReadonlySet<ThresholdName>;
  /** Whether one of them is set (RuleContext.explicit: one function per run, not one per point). */
  isExplicit: (name: ThresholdName) => boolean;
  finished: boolean;
  /** The point that arrived last (of any tag): a stall cites it. */
  lastPoint: CitedPoint | null;
  /** Its trainer process exited (processExited) and no data came since. */
  exited: boolean;
  /** A process attributed to the run is alive (setProcessAlive): its silence is a hang. */
  processAlive: boolean;
  lastTrainingWall: number;
  /** A stalled-run or trainer-exited alert may be open (tick or processExited judged one): the next arrival clears
   * it. Points skip the clearing otherwise (its lookups were a tenth of a replay's time). */
  arrivalClears: boolean;
  /** Data arrivals (clock time), for stall detection. */
  arrivals: ArrivalGaps;
  /** The run's first tag per role: run-level rules (reward plateau, the combined signals) read only it, so a
   * run logging its reward under four names gets one plateau alert, not four, and no mixed-up medians. */
  primary: Map<Role, string>;
  /** What the combined rules read, fed from the primary tags. */
  summary: RunSummary;
  /** Classic RL until its config (setScope) or one of its tags shows an LLM RLHF run. */
  scope: RunScope;
}

/** Rules about the run as a whole: evaluated on the run's primary tag of their role only. */
const RUN_LEVEL_RULES = new Set<RuleId>(['reward-plateau']);
/** Rules whose alert is about the run, whatever tag trips them: one incident per run (a NaN in three losses). */
const PER_RUN_RULES = new Set<RuleId>(['non-finite', 'learning-stagnation']);

/** What any arrival clears. */
const ARRIVAL_CLEARS = [STALLED_RUN, TRAINER_EXITED];

const NO_POINT: CitedPoint = { tag: null, step: Number.NaN, wallTime: null, value: Number.NaN };

export class HealthEngine {
  private readonly runs = new Map<string, RunState>();
  private readonly gates: AlertGates;
  private readonly classify: (tag: string) => TagClass | null;

  constructor(private readonly opts: HealthEngineOptions) {
    this.classify = opts.classify ?? classifyTag;
    this.gates = new AlertGates(opts.sink);
  }

  /** Thresholds for one run (from resolveThresholds) and which of them the user or the run's config set; applies
   * to points fed from now on. */
  setThresholds(run: string, th: Thresholds, explicit: Iterable<ThresholdName> = []): void {
    const r = this.run(run);
    r.thresholds = th;
    r.explicit = new Set(explicit);
  }

  /** The run's scope as the engine knows it (from setScope and the tags fed); null for a run it has not seen. */
  scopeOf(run: string): RunScope | null {
    return this.runs.get(run)?.scope ?? null;
  }

  /** The run's scope from its config and known tags (runScope); an LLM tag fed later still makes it LLM. */
  setScope(run: string, scope: RunScope): void {
    const r = this.run(run);
    if (r.scope !== 'llm') r.scope = scope;
  }

  /** Training activity seen elsewhere (another run) at `wallTime` seconds: rules of `run` that only matter
   * while training (an idle GPU) treat it as active. Used for the live-samples pseudo-run. A point without a
   * wall time (its source logs none) counts when it arrives. */
  noteTraining(run: string, wallTime: number): void {
    const r = this.run(run);
    const at = Number.isFinite(wallTime) ? wallTime : this.opts.clock() / 1000;
    r.lastTrainingWall = Math.max(r.lastTrainingWall, at);
  }

  /** A finished run (progress 100 %, user closed it) must not be reported as stalled. */
  setFinished(run: string, finished = true): AlertTransition[] {
    const r = this.run(run);
    r.finished = finished;
    if (!finished) return [];
    const now = this.opts.clock();
    const point = r.lastPoint ?? NO_POINT;
    return [STALLED_RUN, TRAINER_EXITED].flatMap(
      (rule) => this.gates.clearNow(run, rule.id, point, now) ?? [],
    );
  }

  /**
   * The run's known trainer process exited at `at` (ms) while the run had not finished. `progress` is the run's
   * progress fraction: below 1 it certainly stopped short — critical at once, citing the run's last logged point
   * (its step; the seconds since it as the value); null when its files cannot say (a healthy SB3 or TensorBoard
   * run ends the same way): the run shows exited (exitedRuns), no alert. New data or finishing clears both.
   */
  processExited(run: string, at: number, progress: number | null): AlertTransition[] {
    const r = this.runs.get(run);
    if (!r || r.finished || r.lastPoint === null) return [];
    const { step, wallTime } = r.lastPoint;
    const silentS = Math.max(0, Math.round((at - (r.arrivals.lastArrival ?? at)) / 1000));
    r.exited = true;
    r.processAlive = false;
    // Files that cannot say whether the run finished: a run that ended looks the same. A status, no alert.
    if (progress === null) return [];
    r.arrivalClears = true;
    return this.gates.judge(
      {
        run,
        rule: TRAINER_EXITED,
        tag: null,
        quantity: null,
        point: { tag: null, step, wallTime, value: silentS },
        level: {
          kind: 'bad',
          severity: 'critical',
          after: 1,
          message: `the trainer process exited ${silentS} s after the last data, at ${Math.round(progress * 100)} % of the run`,
        },
        scope: r.scope,
      },
      this.opts.clock(),
    );
  }

  /** Whether a process attributed to the run is alive now (the sampler's per-run attribution). */
  setProcessAlive(run: string, alive: boolean): void {
    const r = this.runs.get(run);
    if (r) r.processAlive = alive;
  }

  /** Runs whose trainer process exited while they had not finished (and no data came since). */
  exitedRuns(): string[] {
    return [...this.runs].flatMap(([run, r]) => (r.exited && !r.finished ? [run] : []));
  }

  /** Forget a run: its active alerts are cleared (so raised/cleared still alternate). */
  removeRun(run: string): AlertTransition[] {
    const out = this.gates.removeRun(run, this.opts.clock());
    this.runs.delete(run);
    return out;
  }

  feed(run: string, tag: string, step: number, wallTime: number, value: number): AlertTransition[] {
    const out: AlertTransition[] = [];
    this.feedInto(out, run, tag, step, wallTime, value);
    return out;
  }

  /** One point, its transitions appended to `out` (a replay of millions of points makes no array per point). */
  feedInto(
    out: AlertTransition[],
    run: string,
    tag: string,
    step: number,
    wallTime: number,
    raw: number,
  ): void {
    const now = this.opts.clock();
    const r = this.run(run);
    r.arrivals.note(now);
    const point: CitedPoint = {
      tag,
      step,
      wallTime: Number.isFinite(wallTime) ? wallTime : null,
      value: raw,
    };
    r.lastPoint = point;
    // Any arrival ends a stall, and an exit (a trainer restarted in the same folder).
    r.exited = false;
    if (r.arrivalClears) {
      // (Nothing joins a run-level stream as a symptom, so clearNow clears an open one: none is left open.)
      r.arrivalClears = false;
      for (const rule of ARRIVAL_CLEARS) {
        const cleared = this.gates.clearNow(run, rule.id, point, now);
        if (cleared) out.push(cleared);
      }
    }
    const t = this.tagState(run, r, tag);
    if (step < t.lastStep) {
      // Restart from a checkpoint: the windows describe a timeline that no longer exists. Reset
      // them (and the streak counters) instead of reading the jump as a fault; active alerts stay
      // until the new timeline clears them.
      for (const s of t.slots) {
        s.state = s.rule.init();
        this.gates.resetStreaks(run, s.rule.id, tag);
      }
    }
    t.lastStep = step;
    const value = t.cls?.transform === 'negate' ? -raw : raw;
    const role = t.cls?.role ?? null;
    if (t.cls && TRAINING_GROUPS.has(t.cls.group) && Number.isFinite(wallTime)) {
      r.lastTrainingWall = Math.max(r.lastTrainingWall, wallTime);
    }
    const th = this.thresholdsOf(r);
    const ctx: RuleContext = {
      th,
      explicit: r.isExplicit,
      step,
      role,
      scope: r.scope,
      // A negated tag (SB3 `train/entropy_loss` = −entropy) is judged as its negative: messages say so.
      tag: t.judgedAs,
      epochLevel: t.epochLevel,
      trainingActive:
        Number.isFinite(wallTime) && Math.abs(wallTime - r.lastTrainingWall) <= th.training_active_s,
    };
    for (const s of t.slots) {
      let level = s.rule.observe(s.state, value, ctx);
      // A threshold nobody set is named as rlwatch's default in the alert itself (card and notification).
      if (level.kind === 'bad')
        level = { ...level, message: level.message + defaultsNote(s.rule.id, th, r.isExplicit) };
      const quantity = PER_RUN_RULES.has(s.rule.id) ? null : t.quantity;
      out.push(...this.gates.judge({ run, rule: s.rule, tag, quantity, point, level, scope: r.scope }, now));
    }
    if (role !== null && Number.isFinite(value) && r.primary.get(role) === tag)
      this.combined(out, run, r, role, value, point, now);
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
    for (const [run, r] of this.runs) {
      // An exited trainer is already reported (critical): its silence is no second incident.
      if (r.finished || r.exited || r.lastPoint === null) continue;
      const stall = r.arrivals.stall(now, this.thresholdsOf(r), r.processAlive);
      if (stall === null) continue;
      r.arrivalClears = true;
      // It cites the run's last logged point: its step, and the silence since it as the value.
      const { step, wallTime } = r.lastPoint;
      out.push(
        ...this.gates.judge(
          {
            run,
            rule: STALLED_RUN,
            tag: null,
            quantity: null,
            point: { tag: null, step, wallTime, value: stall.silentS },
            level: stall.level,
            scope: r.scope,
          },
          now,
        ),
      );
    }
    return out;
  }

  /** Runs that show as stalled at `now`: silent past their own rhythm (max(2.5 × their typical gap, 25 s)), not
   * finished, their trainer not known to have exited. A status, not an alert: a run that simply ended shows so
   * too; the stalled-run alert comes from tick() after a longer silence. */
  stalledRuns(now = this.opts.clock()): string[] {
    const out: string[] = [];
    for (const [run, r] of this.runs)
      if (!r.finished && !r.exited && r.lastPoint !== null && r.arrivals.stalled(now, this.thresholdsOf(r)))
        out.push(run);
    return out;
  }

  /** Marks an alert seen: its later transitions do not notify until it clears and a new incident starts. */
  acknowledge(id: string): boolean {
    return this.gates.acknowledge(id);
  }

  /** Mutes notifications for this run+rule+tag until `untilMs` (clock time); null unsnoozes. */
  snooze(id: string, untilMs: number | null): boolean {
    return this.gates.snooze(id, untilMs);
  }

  /** Grows whenever an open incident lists a new tag (no transition says so). */
  get tagChanges(): number {
    return this.gates.tagChanges;
  }

  /** Active alerts, critical first, then by raise time. */
  active(run?: string): Alert[] {
    return this.gates.active(run);
  }

  // --- internals ---

  private thresholdsOf(r: RunState): Thresholds {
    return r.thresholds ?? this.opts.thresholds ?? DEFAULT_THRESHOLDS;
  }

  private run(name: string): RunState {
    let r = this.runs.get(name);
    if (!r) {
      const created: RunState = {
        tags: new Map(),
        thresholds: null,
        explicit: new Set(),
        finished: false,
        lastPoint: null,
        exited: false,
        processAlive: false,
        lastTrainingWall: -Infinity,
        arrivalClears: false,
        arrivals: new ArrivalGaps(),
        primary: new Map(),
        summary: new RunSummary(),
        scope: 'classic',
        isExplicit: (th) => created.explicit.has(th),
      };
      r = created;
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
      if (isLlmTag(tag)) r.scope = 'llm';
      const slots = POINT_RULES.filter(
        (rule) => rule.applies(role, tag, epochLevel) && (!RUN_LEVEL_RULES.has(rule.id) || isPrimary),
      ).map((rule) => ({ rule, state: rule.init() }));
      const judgedAs = cls?.transform === 'negate' ? `−${tag}` : tag;
      t = { cls, quantity: role ?? tag, judgedAs, epochLevel, lastStep: -Infinity, slots };
      r.tags.set(tag, t);
    }
    return t;
  }

  /** The combined rules whose inputs include `role`, after the run summary takes the point (which they cite). */
  private combined(
    out: AlertTransition[],
    run: string,
    r: RunState,
    role: Role,
    value: number,
    point: CitedPoint,
    now: number,
  ): void {
    r.summary.observe(role, value, point.step);
    const th = this.thresholdsOf(r);
    for (const rule of COMBINED_RULES) {
      if (!rule.inputs.includes(role)) continue;
      const level = judgeCombined(rule, r.summary, this.gates.isOn(run, rule.companion), th);
      out.push(
        ...this.gates.judge(
          { run, rule, tag: null, quantity: null, point, level, scope: r.scope, companion: rule.companion },
          now,
        ),
      );
    }
  }
}
