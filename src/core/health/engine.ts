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
import { CoMovers, strongest, type Recent, type ScoredMover } from './co-movers';
import { COMBINED_RULES, judgeCombined, RunSummary } from './combined-rules';
import { AlertGates, type CitedPoint } from './gates';
import { continuousEntropyCollapse, showsContinuousActions } from './continuous-entropy';
import { defaultsNote } from './rule-thresholds';
import { POINT_RULES } from './rules';
import { entropyCollapse } from './policy-rules';
import type { PointRule, RuleContext } from './point-rule';
import { showsQLearning, valueLossDivergence } from './value-rules';
import { ArrivalGaps, STALLED_RUN, TRAINER_EXITED } from './stall';
import type { CrashLog } from '../readers/crash-log';
import { isEpochTag, judgeStops, RunStopTracker, type RunFileFacts, type StopVerdict } from './stop-evidence';
import { DEFAULT_THRESHOLDS, type ThresholdName, type Thresholds } from './thresholds';
import type { CoMover } from '../../shared/domain';
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
  /** It counts epochs (a config's epoch total is compared with it). */
  countsEpochs: boolean;
  lastStep: number;
  slots: RuleSlot[];
  /** Its last points, for the co-movers of an incident (null: a progress, timing or system tag). */
  recent: Recent | null;
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
  /** Data arrivals (clock time) since its first read: the run's live rhythm. */
  arrivals: ArrivalGaps;
  /** What its files say about a stop: their rhythm, its step, its planned end and siblings (stop-evidence.ts). */
  stop: RunStopTracker;
  /** The run's first tag per role: run-level rules (reward plateau, the combined signals) read only it, so a
   * run logging its reward under four names gets one plateau alert, not four, and no mixed-up medians. */
  primary: Map<Role, string>;
  /** What the combined rules read, fed from the primary tags. */
  summary: RunSummary;
  /** Classic RL until its config (setScope) or one of its tags shows an LLM RLHF run. */
  scope: RunScope;
  /** A tag (a policy's std, SAC's ent_coef) or a negative entropy showed the policy acts in a continuous space: its
   * entropy is a Gaussian's, judged in nats (continuous-entropy.ts), not by ratios. */
  continuous: boolean;
  /** An exploration-rate tag showed a Q-learner: its generic `loss` is the TD loss, judged as a critic's. */
  qLearning: boolean;
  /** Every tag's last points: what else moved when an incident began. */
  coMovers: CoMovers;
  /** Incidents raised lately, whose co-movers a late point at or before their onset may still change (a live
   * delta feeds one tag's points at a time: the learning rate of the onset step may come after the KL). */
  onsets: {
    id: string;
    since: number;
    step: number;
    own: string[];
    found: Map<string, ScoredMover>;
    left: number;
  }[];
}

/** An onset is looked at again for late points until this many later points of other tags (per tag of the run,
 * at least 8 tags) arrived. */
const ONSET_LATE_POINTS = 4;

/** Rules about the run as a whole: evaluated on the run's primary tag of their role only. */
const RUN_LEVEL_RULES = new Set<RuleId>(['reward-plateau']);
/** Rules whose alert is about the run, whatever tag trips them: one incident per run (a NaN in three losses). */
const PER_RUN_RULES = new Set<RuleId>(['non-finite', 'learning-stagnation']);

/** A batch's extreme (`response_length/max`, `…/min`) is never the run's primary tag of its role. */
const EXTREME_TAG = /[/_](max|min)$/i;

/** What any arrival clears. */
const ARRIVAL_CLEARS = [STALLED_RUN, TRAINER_EXITED];

const NO_POINT: CitedPoint = { tag: null, step: Number.NaN, wallTime: null, value: Number.NaN };

export class HealthEngine {
  private readonly runs = new Map<string, RunState>();
  private readonly gates: AlertGates;
  private readonly classify: (tag: string) => TagClass | null;

  constructor(private readonly opts: HealthEngineOptions) {
    this.classify = opts.classify ?? classifyTag;
    this.gates = new AlertGates(opts.sink, (id, rule, run, step, own) =>
      this.onset(id, rule, run, step, own),
    );
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
      (rule) => this.gates.clearNow(run, rule.id, point, now, 'the run finished') ?? [],
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
    const planned = r.stop.plannedProgress();
    // Its config's planned end counts as much as a progress file's (at its end: a normal exit, no alert).
    if (progress === null && planned !== null) progress = planned.atEnd ? null : planned.fraction;
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

  /** History, not news: the run's active alerts are cleared now (recorded), its state is kept (stop-facts.ts). */
  settle(run: string): AlertTransition[] {
    return this.gates.removeRun(
      run,
      this.opts.clock(),
      'its run was last written long before it was opened (history)',
    );
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
        const cleared = this.gates.clearNow(run, rule.id, point, now, `the run wrote again (step ${step})`);
        if (cleared) out.push(cleared);
      }
    }
    const t = this.tagState(run, r, tag);
    r.stop.note(now, step, wallTime, t.countsEpochs ? raw : null);
    if (step < t.lastStep) {
      t.recent?.clear();
      // Restart from a checkpoint: the windows describe a timeline that no longer exists. Reset
      // them (and the streak counters) instead of reading the jump as a fault; active alerts stay
      // until the new timeline clears them.
      for (const s of t.slots) {
        s.state = s.rule.init();
        this.gates.resetStreaks(run, s.rule.id, tag);
      }
    }
    t.lastStep = step;
    t.recent?.push(step, raw);
    if (r.onsets.length > 0) this.lateCoMover(r, tag, step);
    const value = t.cls?.transform === 'negate' ? -raw : raw;
    const role = t.cls?.role ?? null;
    // Only a differential (continuous) entropy is ever below 0.
    if (role === 'entropy' && value < 0 && r.scope === 'classic') this.markContinuous(run, r);
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

  /** What a run's files and run list say (its last write, planned end, siblings): the stop judgement's evidence. */
  setFileFacts(run: string, facts: RunFileFacts): void {
    this.run(run).stop.setFacts(this.opts.clock(), facts);
  }

  /** A log beside the run that ends in a traceback (readers/crash-log.ts): its stop is a crash when the log was
   * written when the run stopped (stop-evidence.ts). */
  setCrashLog(run: string, crash: CrashLog | null): void {
    this.run(run).stop.crash = crash;
  }

  /** The run's first read is done: the arrivals of that read were one load, not its rhythm; it starts afresh. */
  firstReadDone(run: string): void {
    const r = this.runs.get(run);
    if (r) r.arrivals = new ArrivalGaps();
  }

  /** Whether the points it has been fed are a copied run's history (RunStopTracker.copiedHistory). */
  copiedHistory(run: string): boolean {
    return this.runs.get(run)?.stop.copiedHistory() ?? false;
  }

  /** Time-based rules (a stop or stall: stop-evidence.ts). Call it on a timer; `now` defaults to the injected clock. */
  tick(now = this.opts.clock()): AlertTransition[] {
    const out: AlertTransition[] = [];
    for (const [run, v] of this.stops(now)) {
      if (v.alert === null) continue;
      const r = this.runs.get(run)!;
      if (r.lastPoint === null) continue;
      r.arrivalClears = true;
      // It cites the run's last logged point: its step, and the silence since it as the value.
      const { step, wallTime } = r.lastPoint;
      // A stop before its end is critical: trainer-exited, or a hang (stalled-run) while its process lives.
      const rule =
        v.alert === 'stalled' || (r.processAlive && v.alert === 'exited') ? STALLED_RUN : TRAINER_EXITED;
      const severity = v.alert === 'stalled' ? 'warning' : 'critical';
      out.push(
        ...this.gates.judge(
          {
            run,
            rule,
            tag: null,
            quantity: null,
            point: { tag: null, step, wallTime, value: v.silentS },
            level: { kind: 'bad', severity, after: 1, message: v.reason },
            scope: r.scope,
          },
          now,
        ),
      );
      // A stop already alerted on (its process gone, or silent before its end) found to be a crash: the open
      // alert now cites the traceback (once: its growing silence is no new message).
      if (v.state === 'crashed')
        for (const a of this.gates.active(run))
          if (a.rule === TRAINER_EXITED.id && !a.message.startsWith('crashed:'))
            this.gates.restate(a.id, v.reason);
    }
    return out;
  }

  /** Each silent run's stop verdict at `now` (stop-evidence.ts): runs finished or with no point yet have none, nor
   * runs whose trainer process exited unless their files say it was before their end. */
  stops(now = this.opts.clock()): Map<string, StopVerdict> {
    const inputs = [...this.runs].map(([run, r]) => ({
      run,
      tracker: r.stop,
      liveTypicalMs: r.arrivals.typicalMs(),
      lastArrivalMs: r.arrivals.lastArrival,
      processAlive: r.processAlive,
    }));
    const out = judgeStops(
      inputs,
      now,
      (run) => this.thresholdsOf(this.runs.get(run)!),
      (run) => {
        const r = this.runs.get(run)!;
        return r.finished || r.lastPoint === null;
      },
    );
    // A run whose trainer is known to have exited shows exited already: its files add only evidence that the exit
    // came before its end (then the alert); its silence is no stall of its own.
    for (const [run, v] of out)
      if (this.runs.get(run)!.exited && v.state !== 'exited' && v.state !== 'crashed') out.delete(run);
    return out;
  }

  /** Runs that show as stalled at `now`: silent past their own rhythm with no evidence of a stop before their end
   * (those show exited), not finished, their trainer not known to have exited. */
  stalledRuns(now = this.opts.clock()): string[] {
    return [...this.stops(now)].flatMap(([run, v]) => (v.state === 'stalled' ? [run] : []));
  }

  /** Marks an alert seen: its later transitions do not notify until it clears and a new incident starts. */
  acknowledge(id: string): boolean {
    return this.gates.acknowledge(id);
  }

  /** Mutes notifications for this run+rule+tag until `untilMs` (clock time); null unsnoozes. */
  snooze(id: string, untilMs: number | null): boolean {
    return this.gates.snooze(id, untilMs);
  }

  /** Grows whenever an open incident lists a new tag or names new co-movers (no transition says so). */
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
        stop: new RunStopTracker(),
        primary: new Map(),
        summary: new RunSummary(),
        scope: 'classic',
        continuous: false,
        qLearning: false,
        coMovers: new CoMovers(),
        onsets: [],
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
      if (role !== null && !r.primary.has(role) && !EXTREME_TAG.test(tag)) r.primary.set(role, tag);
      const isPrimary = role !== null && r.primary.get(role) === tag;
      if (isLlmTag(tag)) r.scope = 'llm';
      const slots = POINT_RULES.filter(
        (rule) => rule.applies(role, tag, epochLevel) && (!RUN_LEVEL_RULES.has(rule.id) || isPrimary),
      ).map((rule) => this.slot(r, rule));
      if (role === 'loss' && r.qLearning) slots.push(this.slot(r, valueLossDivergence));
      const judgedAs = cls?.transform === 'negate' ? `−${tag}` : tag;
      const recent = r.coMovers.track(tag, cls);
      t = {
        cls,
        quantity: role ?? tag,
        judgedAs,
        epochLevel,
        countsEpochs: isEpochTag(tag),
        lastStep: -Infinity,
        slots,
        recent,
      };
      r.tags.set(tag, t);
      if (r.scope === 'classic' && showsContinuousActions(tag)) this.markContinuous(run, r);
      if (r.scope === 'classic' && showsQLearning(tag)) this.markQLearning(r);
    }
    return t;
  }

  /** The run's other tags that moved sharply up to incident `id`'s onset at `step`: never its own tag's quantity,
   * nor (a combined rule) the quantities it judged. */
  private onset(id: string, rule: RuleId, run: string, step: number, own: string): CoMover[] {
    const r = this.runs.get(run);
    if (!r) return [];
    const inputs = COMBINED_RULES.find((c) => c.id === rule)?.inputs ?? [];
    const mine = this.ownTags(r, [own, ...inputs]);
    // The onset's recent updates, by the alert tag's own rhythm (a rarely logged tag's old jump is no co-mover).
    const since = r.coMovers.recentFrom(own, step);
    const found = r.coMovers.scored(since, step, mine);
    r.onsets.push({ id, since, step, own: mine, found, left: ONSET_LATE_POINTS * Math.max(8, r.tags.size) });
    return strongest(found);
  }

  /** The alert's own tags and every tag of their quantities (a run logging KL under two names); `own` holds tags
   * or roles. */
  private ownTags(r: RunState, own: readonly string[]): string[] {
    const quantities = new Set(own.map((tag) => r.tags.get(tag)?.quantity ?? tag));
    return [...r.tags].flatMap(([tag, t]) => (quantities.has(t.quantity) || own.includes(tag) ? [tag] : []));
  }

  /** A point of `tag` (noted) arrived: an onset at or after its step judges the tag again, and its incident shows
   * the new co-movers; onsets that later points passed long enough are done. */
  private lateCoMover(r: RunState, tag: string, step: number): void {
    r.onsets = r.onsets.filter((o) => {
      if (o.own.includes(tag)) return true;
      if (step > o.step) return --o.left > 0;
      const before = strongest(o.found);
      const m = r.coMovers.scoredOne(tag, o.since, o.step);
      if (m === null) o.found.delete(tag);
      else o.found.set(tag, m);
      const after = strongest(o.found);
      if (JSON.stringify(after) !== JSON.stringify(before)) return this.gates.setChanged(o.id, after);
      return true;
    });
  }

  /** The run is a Q-learner: its generic loss tags (seen so far and later) are judged as its TD loss. */
  private markQLearning(r: RunState): void {
    if (r.qLearning) return;
    r.qLearning = true;
    for (const t of r.tags.values())
      if (t.cls?.role === 'loss' && !t.slots.some((s) => s.rule === valueLossDivergence))
        t.slots.push(this.slot(r, valueLossDivergence));
  }

  /** A rule slot of the run: its entropy rule is the one of its action space. */
  private slot(r: RunState, rule: PointRule<unknown>): RuleSlot {
    const chosen = rule === entropyCollapse && r.continuous ? continuousEntropyCollapse : rule;
    return { rule: chosen, state: chosen.init() };
  }

  /** The run acts in a continuous space: the entropy tags it already has switch to the Gaussian judgement. */
  private markContinuous(run: string, r: RunState): void {
    if (r.continuous) return;
    r.continuous = true;
    for (const [tag, t] of r.tags)
      t.slots = t.slots.map((s) => {
        if (s.rule !== entropyCollapse) return s;
        this.gates.resetStreaks(run, s.rule.id, tag);
        return this.slot(r, s.rule);
      });
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
      const companionOn = rule.companion === null || this.gates.isOn(run, rule.companion);
      const level = judgeCombined(rule, r.summary, companionOn, th, r.isExplicit);
      const companion = rule.companion ?? undefined;
      out.push(
        ...this.gates.judge(
          { run, rule, tag: null, quantity: null, point, level, scope: r.scope, companion },
          now,
        ),
      );
    }
  }
}
