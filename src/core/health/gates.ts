// The hysteresis gates: per-tag streaks that latch a rule on and off, grouped into one incident stream per quantity.
//
// A *member* is one rule on one tag (its evidence: consecutive bad, critical and ok levels). A *stream* is what a
// user sees as one alert: one rule on one quantity of a run (every tag logging that quantity). A stream raises when
// its first member latches on, citing that member's point; escalates when a member is critical; clears when its
// last member latches off. A policy rule (KL, entropy, clip fraction…) that latches on within a few updates of
// another policy incident of the run is a symptom of that incident (a learning-rate blow-up moves them together):
// it joins it — its tags listed, the incident held open while it lasts — instead of raising a second alert.
// A follow-on symptom (learning stagnation, a reward plateau) that latches on while a cause incident of the run is
// open (a collapse, a blow-up, a NaN) is its consequence and joins it too: its own advice would contradict the cause.
// An incident records what else changed when it began (co-movers, from the engine). Acknowledge and snooze act on streams.

import { formatNumber } from '../../shared/format';
import type { RunScope } from '../../shared/catalog';
import { coMoversClause } from '../../shared/co-mover-text';
import type { CoMover } from '../../shared/domain';
import { ruleAdvice } from './advice';
import { alertId, parseAlertId, streamKey } from './alert-id';
import type { Alert, AlertSink, AlertTransition, Level, RuleId, Severity } from './types';

/** Why a rule's own condition ended, in words: the point that cleared it. */
export function clearedByPoint(p: CitedPoint): string {
  if (!Number.isFinite(p.step)) return 'the rule no longer holds';
  const value = Number.isFinite(p.value) ? ` = ${formatNumber(p.value)}` : '';
  return p.tag === null
    ? `the rule no longer holds at step ${p.step}`
    : `${p.tag}${value} at step ${p.step}: the rule no longer holds`;
}

interface Member {
  stream: string;
  rule: RuleId;
  bad: number;
  crit: number;
  ok: number;
  on: boolean;
}

interface Stream {
  run: string;
  rule: RuleId;
  /** The rule family whose streams join one incident ('policy'), or null. */
  group: string | null;
  active: Alert | null;
  /** The active alert's message as its rule said it (the co-movers are added to it). */
  said: string;
  /** Levels judged on the stream since its incident raised (how fresh the incident is for a symptom to join). */
  sinceRaise: number;
  /** The incident this stream joined as a symptom (while it is on), and the symptoms joined to this one. */
  partOf: Stream | null;
  joined: Set<Stream>;
  /** Members latched on (their ids). */
  on: Set<string>;
  /** Snooze outlives one incident: a snoozed flapping alert stays quiet until the time. */
  snoozedUntil: number | null;
  /** Flap damping: the members' clear streaks are multiplied by this (doubled by each quick re-raise), and
   * the levels judged since the stream last cleared (null: never cleared). */
  damping: number;
  sinceClear: number | null;
}

/** A re-raise within this many times the rule's clear streak after a clear counts as the same trouble
 * returning: the next clear needs twice the streak (up to MAX_DAMPING ×). A long quiet resets it. */
const QUICK_RERAISE = 20;
const MAX_DAMPING = 64;

/** Rules that are symptoms of one policy trouble when they start together. */
const POLICY_RULES: ReadonlySet<RuleId> = new Set<RuleId>([
  'kl-above-target',
  'kl-high-reward-falling',
  'entropy-collapse',
  'entropy-collapse-low-temperature',
  'clip-fraction-out-of-band',
  'importance-ratio-off',
]);
/** Rules that are symptoms of one critic trouble (a diverging value function) when they start together. */
const CRITIC_RULES: ReadonlySet<RuleId> = new Set<RuleId>([
  'value-loss-divergence',
  'q-value-explosion',
  'explained-variance-collapse',
]);
/** What follows a training trouble rather than causing one: while a cause incident is open they join it. */
const FOLLOW_ON_RULES: ReadonlySet<RuleId> = new Set<RuleId>(['learning-stagnation', 'reward-plateau']);
/** Incidents that explain a later stagnation or plateau (a collapse, a blow-up, a divergence, a NaN). */
const CAUSE_RULES: ReadonlySet<RuleId> = new Set<RuleId>([
  ...POLICY_RULES,
  ...CRITIC_RULES,
  'non-finite',
  'grad-norm-spike',
  'response-length-collapse',
  'response-length-explosion',
  'reward-hacking',
]);
/** Whether a stream, or a symptom joined to it, still has a member latched on. A follow-on (a plateau) never holds
 * its cause open: a plateau can outlast the blow-up by far; if it does, it is its own alert once the cause clears. */
const stillOn = (s: Stream): boolean =>
  s.on.size > 0 || [...s.joined].some((j) => !FOLLOW_ON_RULES.has(j.rule) && stillOn(j));

/** A symptom joins an incident raised at most this many of its levels ago (about as many updates). */
const JOIN_WITHIN = 10;

/** How much evidence a rule needs to clear: consecutive ok levels. (Raising evidence comes with each bad level.) */
export interface Hysteresis {
  id: RuleId;
  clearAfter: number;
}

/** A logged point as an alert cites it: the value exactly as the file holds it. */
export interface CitedPoint {
  tag: string | null;
  step: number;
  wallTime: number | null;
  value: number;
}

/** One rule's level for one member, the point it was judged on, and what the alert records if it raises. */
export interface GateInput {
  run: string;
  rule: Hysteresis;
  /** The tag the rule watches (null for run-level rules): one member per run + rule + tag. */
  tag: string | null;
  /** What the rule is about (a catalog role, else the tag; null for run-level rules): one stream per quantity. */
  quantity: string | null;
  point: CitedPoint;
  level: Level;
  /** The run's world: the alert's advice is worded for it. */
  scope: RunScope;
  /** A combined rule's companion: while that rule's incident is open, this one is its symptom and joins it. */
  companion?: RuleId;
}

const memberId = (run: string, rule: RuleId, tag: string | null): string => JSON.stringify([run, rule, tag]);

/** Keys by run, rule and tag (or quantity), each built once: judge and clearNow ask for keys on every point, and
 * building them (JSON) was most of a replay's time. A run's keys go with it (removeRun). */
class KeyMemo {
  private readonly byRun = new Map<string, Map<RuleId, Map<string | null, string>>>();

  constructor(private readonly make: (run: string, rule: RuleId, x: string | null) => string) {}

  get(run: string, rule: RuleId, x: string | null): string {
    let rules = this.byRun.get(run);
    if (!rules) this.byRun.set(run, (rules = new Map()));
    let keys = rules.get(rule);
    if (!keys) rules.set(rule, (keys = new Map()));
    let key = keys.get(x);
    if (key === undefined) keys.set(x, (key = this.make(run, rule, x)));
    return key;
  }

  forget(run: string): void {
    this.byRun.delete(run);
  }
}

export class AlertGates {
  private readonly members = new Map<string, Member>();
  private readonly streams = new Map<string, Stream>();
  /** The same members and streams per run, in the same order: a run's lookups never scan other runs' (10k runs). */
  private readonly runMembers = new Map<string, Map<string, Member>>();
  private readonly runStreams = new Map<string, Map<string, Stream>>();
  private readonly memberIds = new KeyMemo(memberId);
  private readonly streamKeys = new KeyMemo(streamKey);
  /** Bumped whenever an open incident lists a new tag (a symptom joined) or new co-movers: readers compare it, not
   * every alert. */
  tagChanges = 0;

  /** `onset` names the run's other tags that moved sharply when an incident began (co-movers.ts), never `own`. */
  constructor(
    private readonly sink: AlertSink | undefined,
    private readonly onset?: (id: string, rule: RuleId, run: string, step: number, own: string) => CoMover[],
  ) {}

  judge(input: GateInput, now: number): AlertTransition[] {
    const { run, rule, tag, quantity, point, level, scope, companion } = input;
    const mid = this.memberIds.get(run, rule.id, tag);
    let m = this.members.get(mid);
    if (!m) {
      // Members exist only once a rule has been bad: healthy tags cost no entries.
      if (level.kind !== 'bad') return [];
      m = {
        stream: this.streamKeys.get(run, rule.id, quantity),
        rule: rule.id,
        bad: 0,
        crit: 0,
        ok: 0,
        on: false,
      };
      this.members.set(mid, m);
      const mine = this.runMembers.get(run);
      if (mine) mine.set(mid, m);
      else this.runMembers.set(run, new Map([[mid, m]]));
    }
    const s = this.stream(m.stream, run, rule.id);
    if (s.sinceClear !== null) s.sinceClear++;
    if (s.active) s.sinceRaise++;
    if (level.kind === 'hold') {
      m.bad = m.crit = m.ok = 0;
      return [];
    }
    if (level.kind === 'ok') {
      m.bad = m.crit = 0;
      m.ok++;
      if (!m.on || m.ok < rule.clearAfter * s.damping) return [];
      m.on = false;
      s.on.delete(mid);
      return this.settle(s, point, now);
    }
    m.ok = 0;
    m.bad++;
    m.crit = level.severity === 'critical' ? m.crit + 1 : 0;
    if (m.bad < level.after) return [];
    const severity: Severity =
      level.severity === 'critical' && m.crit >= level.after ? 'critical' : 'warning';
    m.on = true;
    s.on.add(mid);
    if (!s.active && s.partOf === null) {
      const host = this.incidentOf(run, companion) ?? this.freshIncident(s) ?? this.causeOf(s);
      if (host !== null) {
        s.partOf = host;
        host.joined.add(s);
        return this.absorb(host, point, severity, level, now);
      }
    }
    if (s.partOf !== null) return this.absorb(s.partOf, point, severity, level, now);
    if (!s.active) {
      // Flapping (raised again soon after it cleared): it must stay quiet longer before the next clear.
      s.damping =
        s.sinceClear !== null && s.sinceClear <= QUICK_RERAISE * rule.clearAfter * s.damping
          ? Math.min(s.damping * 2, MAX_DAMPING)
          : 1;
      s.sinceRaise = 0;
      const id = alertId(run, rule.id, quantity, point.step);
      const changed = point.tag === null ? [] : (this.onset?.(id, rule.id, run, point.step, point.tag) ?? []);
      s.said = level.message;
      s.active = {
        id,
        rule: rule.id,
        severity,
        run,
        tag: point.tag,
        tags: point.tag === null ? [] : [point.tag],
        step: point.step,
        wallTime: point.wallTime,
        value: point.value,
        statistic: level.statistic ?? null,
        message: level.message + coMoversClause(changed),
        advice: ruleAdvice(rule.id, scope),
        ...(changed.length > 0 ? { changed } : {}),
        raisedAt: now,
        acknowledged: false,
        snoozedUntil: s.snoozedUntil,
      };
      return [this.emit({ kind: 'raised', alert: s.active, notify: this.notifies(s, now) })];
    }
    return this.absorb(s, point, severity, level, now);
  }

  /** A bad level on an incident's own stream or on a symptom joined to it: its tag is listed; a critical level
   * escalates a warning incident, citing this point. */
  private absorb(
    s: Stream,
    point: CitedPoint,
    severity: Severity,
    level: Extract<Level, { kind: 'bad' }>,
    now: number,
  ): AlertTransition[] {
    const a = s.active;
    if (a === null) return [];
    if (point.tag !== null && !a.tags.includes(point.tag)) {
      s.active = { ...a, tags: [...a.tags, point.tag] };
      this.tagChanges++;
    }
    if (s.active!.severity === 'warning' && severity === 'critical') {
      s.active = {
        ...s.active!,
        severity: 'critical',
        tag: point.tag,
        step: point.step,
        wallTime: point.wallTime,
        value: point.value,
        statistic: level.statistic ?? null,
        message: level.message + coMoversClause(s.active!.changed),
      };
      s.said = level.message;
      return [
        this.emit({ kind: 'escalated', alert: s.active, from: 'warning', notify: this.notifies(s, now) }),
      ];
    }
    return [];
  }

  /** The open incident a latched member of `rule` belongs to on the run (its own, or the one it joined). */
  private incidentOf(run: string, rule: RuleId | undefined): Stream | null {
    if (rule === undefined) return null;
    for (const m of this.runMembers.get(run)?.values() ?? []) {
      if (!m.on || m.rule !== rule) continue;
      const s = this.streams.get(m.stream);
      if (s?.run !== run) continue;
      const host = s.active ? s : s.partOf;
      if (host?.active) return host;
    }
    return null;
  }

  /** A policy incident of the same run raised a few levels ago, that a new symptom joins; null when none. */
  private freshIncident(s: Stream): Stream | null {
    if (s.group === null) return null;
    for (const o of this.runStreams.get(s.run)?.values() ?? [])
      if (o !== s && o.group === s.group && o.active && o.sinceRaise <= JOIN_WITHIN) return o;
    return null;
  }

  /** Incident `id`'s co-movers as now known (a late point of the onset step arrived); false once it is not open. */
  setChanged(id: string, changed: CoMover[]): boolean {
    const s = this.streamOf(id);
    if (!s?.active || s.active.id !== id) return false;
    const { changed: _old, ...rest } = s.active;
    s.active = {
      ...rest,
      message: s.said + coMoversClause(changed),
      ...(changed.length > 0 ? { changed } : {}),
    };
    this.tagChanges++;
    return true;
  }

  /** Incident `id` says `said` from now on (a stop found to be a crash cites its traceback); false once it is not
   * open or already says it. */
  restate(id: string, said: string): boolean {
    const s = this.streamOf(id);
    if (!s?.active || s.active.id !== id || s.said === said) return false;
    s.said = said;
    s.active = { ...s.active, message: said + coMoversClause(s.active.changed) };
    this.tagChanges++;
    return true;
  }

  /** An open cause incident of the run that a follow-on symptom (stagnation, plateau) joins; null when none. */
  private causeOf(s: Stream): Stream | null {
    if (!FOLLOW_ON_RULES.has(s.rule)) return null;
    for (const o of this.runStreams.get(s.run)?.values() ?? [])
      if (o !== s && o.active && CAUSE_RULES.has(o.rule)) return o;
    return null;
  }

  /** After a member latched off: a symptom that is over leaves its incident, and an incident with nothing on clears. */
  private settle(s: Stream, point: CitedPoint, now: number): AlertTransition[] {
    if (stillOn(s)) return [];
    const host = s.partOf;
    if (host !== null) {
      host.joined.delete(s);
      s.partOf = null;
      return host.active && !stillOn(host) ? [this.clear(host, point, now)] : [];
    }
    return s.active ? [this.clear(s, point, now)] : [];
  }

  /** Forget one member's evidence so far (a restart from a checkpoint); an active alert stays. */
  resetStreaks(run: string, rule: RuleId, tag: string | null): void {
    const m = this.members.get(this.memberIds.get(run, rule, tag));
    if (m) m.bad = m.crit = m.ok = 0;
  }

  /** Clears the run-level stream of `rule` at once when it is active (the condition is gone by definition). */
  clearNow(
    run: string,
    rule: RuleId,
    point: CitedPoint,
    now: number,
    because?: string,
  ): AlertTransition | null {
    const s = this.streams.get(this.streamKeys.get(run, rule, null));
    if (!s?.active || s.joined.size > 0) return null;
    for (const mid of s.on) {
      const m = this.members.get(mid);
      if (m) {
        m.on = false;
        m.bad = m.crit = m.ok = 0;
      }
    }
    s.on.clear();
    return this.clear(s, point, now, because);
  }

  /** Whether the run has a member of `rule` latched on (a combined rule's companion signal). */
  isOn(run: string, rule: RuleId): boolean {
    for (const m of this.runMembers.get(run)?.values() ?? []) if (m.on && m.rule === rule) return true;
    return false;
  }

  /** Clears the run's active alerts (so raised/cleared still alternate) and forgets its members and streams. */
  removeRun(run: string, now: number, because = 'its run is no longer followed'): AlertTransition[] {
    const out: AlertTransition[] = [];
    for (const [key, s] of this.runStreams.get(run) ?? []) {
      if (s.active) {
        const a = s.active;
        out.push(
          this.clear(s, { tag: a.tag, step: a.step, wallTime: a.wallTime, value: Number.NaN }, now, because),
        );
      }
      this.streams.delete(key);
    }
    for (const id of this.runMembers.get(run)?.keys() ?? []) this.members.delete(id);
    this.runStreams.delete(run);
    this.runMembers.delete(run);
    this.memberIds.forget(run);
    this.streamKeys.forget(run);
    return out;
  }

  acknowledge(id: string): boolean {
    const s = this.streamOf(id);
    if (!s?.active || s.active.id !== id) return false;
    s.active = { ...s.active, acknowledged: true };
    this.sink?.update(s.active);
    return true;
  }

  /** Mutes the stream of `id` (its run, rule and quantity) until `untilMs`, across incidents; null unsnoozes. */
  snooze(id: string, untilMs: number | null): boolean {
    const key = parseAlertId(id);
    if (key === null) return false;
    const skey = streamKey(key.run, key.rule, key.quantity);
    if (!this.streams.has(skey) && untilMs === null) return false;
    // Snoozing before the next incident (a snooze restored after a restart, or on a cleared alert) needs
    // somewhere to live until the rule raises again.
    const s = this.stream(skey, key.run, key.rule);
    s.snoozedUntil = untilMs;
    if (s.active) {
      s.active = { ...s.active, snoozedUntil: untilMs };
      this.sink?.update(s.active);
    }
    return true;
  }

  /** Active alerts, critical first, then by raise time. */
  active(run?: string): Alert[] {
    const list: Alert[] = [];
    for (const s of this.streams.values())
      if (s.active && (run === undefined || s.active.run === run)) list.push(s.active);
    return list.sort((a, b) =>
      a.severity === b.severity ? a.raisedAt - b.raisedAt : a.severity === 'critical' ? -1 : 1,
    );
  }

  private stream(key: string, run: string, rule: RuleId): Stream {
    let s = this.streams.get(key);
    if (!s) {
      s = {
        run,
        rule,
        group: POLICY_RULES.has(rule) ? 'policy' : CRITIC_RULES.has(rule) ? 'critic' : null,
        active: null,
        said: '',
        sinceRaise: 0,
        partOf: null,
        joined: new Set(),
        on: new Set(),
        snoozedUntil: null,
        damping: 1,
        sinceClear: null,
      };
      this.streams.set(key, s);
      const mine = this.runStreams.get(run);
      if (mine) mine.set(key, s);
      else this.runStreams.set(run, new Map([[key, s]]));
    }
    return s;
  }

  private streamOf(id: string): Stream | null {
    const key = parseAlertId(id);
    return key === null ? null : (this.streams.get(streamKey(key.run, key.rule, key.quantity)) ?? null);
  }

  private notifies(s: Stream, now: number): boolean {
    const snoozed = s.snoozedUntil !== null && now < s.snoozedUntil;
    return !snoozed && !(s.active?.acknowledged ?? false);
  }

  /** Clears the stream's alert; `because` says why (by default the point that cleared it, in words). */
  private clear(s: Stream, point: CitedPoint, now: number, because = clearedByPoint(point)): AlertTransition {
    const alert = s.active!;
    const notify = this.notifies(s, now);
    s.active = null;
    s.sinceClear = 0;
    for (const j of s.joined) j.partOf = null;
    s.joined.clear();
    const { tag, step, wallTime, value } = point;
    return this.emit({ kind: 'cleared', alert, tag, step, wallTime, value, at: now, notify, because });
  }

  private emit(t: AlertTransition): AlertTransition {
    this.sink?.record(t);
    return t;
  }
}
