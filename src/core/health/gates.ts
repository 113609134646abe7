// The hysteresis gates: per alert id, streak counts that raise, escalate and clear alerts, plus acknowledge and snooze.

import type { RunScope } from '../../shared/catalog';
import { ruleAdvice } from './advice';
import { parseAlertId } from './alert-id';
import type { Alert, AlertSink, AlertTransition, Level, RuleId, Severity } from './types';

interface Gate {
  run: string;
  active: Alert | null;
  bad: number;
  crit: number;
  ok: number;
  /** Snooze outlives one incident: a snoozed flapping alert stays quiet until the time. */
  snoozedUntil: number | null;
  /** Flap damping: the ok levels this gate needs to clear now (the rule's clearAfter, doubled by each quick
   * re-raise), and the levels judged since it last cleared (null: never cleared). */
  clearAfter: number;
  sinceClear: number | null;
}

/** A re-raise within this many times the current clear streak after a clear counts as the same trouble
 * returning: the next clear needs twice the streak (up to MAX_DAMPING × the rule's). A long quiet resets it. */
const QUICK_RERAISE = 20;
const MAX_DAMPING = 64;

/** How much evidence a rule needs: consecutive bad (or critical) levels to raise (escalate), ok ones to clear. */
export interface Hysteresis {
  id: RuleId;
  raiseAfter: number;
  clearAfter: number;
}

/**
 * One rule's level for one alert id, with what the alert records if it raises. `value` is the latest
 * point's (what a clear records); a raise or escalation records the bad level's own value.
 */
export interface GateInput {
  id: string;
  run: string;
  rule: Hysteresis;
  tag: string | null;
  step: number;
  value: number;
  level: Level;
  /** The run's world: the alert's advice is worded for it. */
  scope: RunScope;
}

function newGate(run: string, clearAfter: number, snoozedUntil: number | null): Gate {
  return { run, active: null, bad: 0, crit: 0, ok: 0, snoozedUntil, clearAfter, sinceClear: null };
}

export class AlertGates {
  private readonly gates = new Map<string, Gate>();

  constructor(private readonly sink: AlertSink | undefined) {}

  /**
   * The gate shared by all rules: raise after `raiseAfter` consecutive bad levels, escalate after
   * as many consecutive critical ones, clear after `clearAfter` consecutive ok (doubled while the alert flaps:
   * re-raised soon after each clear); hold breaks streaks.
   */
  judge(input: GateInput, now: number): AlertTransition[] {
    const { id, run, rule, tag, step, value, level, scope } = input;
    let g = this.gates.get(id);
    if (!g) {
      // Gates exist only once a rule has been bad: healthy tags cost no entries.
      if (level.kind !== 'bad') return [];
      g = newGate(run, rule.clearAfter, null);
      this.gates.set(id, g);
    }
    if (g.sinceClear !== null) g.sinceClear++;
    if (level.kind === 'hold') {
      g.bad = g.crit = g.ok = 0;
      return [];
    }
    if (level.kind === 'ok') {
      g.bad = g.crit = 0;
      g.ok++;
      return g.active && g.ok >= g.clearAfter ? [this.clear(g, step, value, now)] : [];
    }
    g.ok = 0;
    g.bad++;
    g.crit = level.severity === 'critical' ? g.crit + 1 : 0;
    if (!g.active) {
      if (g.bad < rule.raiseAfter) return [];
      // Flapping (raised again soon after it cleared): it must stay quiet longer before the next clear.
      g.clearAfter =
        g.sinceClear !== null && g.sinceClear <= QUICK_RERAISE * g.clearAfter
          ? Math.min(g.clearAfter * 2, MAX_DAMPING * rule.clearAfter)
          : rule.clearAfter;
      const severity: Severity = g.crit >= rule.raiseAfter ? 'critical' : 'warning';
      const alert: Alert = {
        id,
        rule: rule.id,
        severity,
        run,
        tag,
        step,
        value: level.value,
        message: level.message,
        advice: ruleAdvice(rule.id, scope),
        raisedAt: now,
        acknowledged: false,
        snoozedUntil: g.snoozedUntil,
      };
      g.active = alert;
      return [this.emit({ kind: 'raised', alert, notify: this.notifies(g, now) })];
    }
    if (g.active.severity === 'warning' && g.crit >= rule.raiseAfter) {
      g.active = { ...g.active, severity: 'critical', step, value: level.value, message: level.message };
      return [
        this.emit({ kind: 'escalated', alert: g.active, from: 'warning', notify: this.notifies(g, now) }),
      ];
    }
    return [];
  }

  /** Forget the evidence so far (a restart from a checkpoint); an active alert stays. */
  resetStreaks(id: string): void {
    const g = this.gates.get(id);
    if (g) g.bad = g.crit = g.ok = 0;
  }

  /** Clears the alert of `id` at once when it is active (the condition is gone by definition). */
  clearNow(id: string, step: number, value: number, now: number): AlertTransition | null {
    const g = this.gates.get(id);
    return g?.active ? this.clear(g, step, value, now) : null;
  }

  /** The run's first active alert of a rule (on any tag), or null. */
  activeOf(run: string, rule: RuleId): Alert | null {
    for (const g of this.gates.values())
      if (g.active && g.active.run === run && g.active.rule === rule) return g.active;
    return null;
  }

  /** Clears the run's active alerts (so raised/cleared still alternate) and forgets its gates. */
  removeRun(run: string, now: number): AlertTransition[] {
    const out: AlertTransition[] = [];
    for (const g of this.gates.values())
      if (g.active && g.active.run === run) out.push(this.clear(g, g.active.step, NaN, now));
    for (const [id, g] of this.gates) if (!g.active && g.run === run) this.gates.delete(id);
    return out;
  }

  acknowledge(id: string): boolean {
    const g = this.gates.get(id);
    if (!g?.active) return false;
    g.active = { ...g.active, acknowledged: true };
    this.sink?.update(g.active);
    return true;
  }

  snooze(id: string, untilMs: number | null): boolean {
    let g = this.gates.get(id);
    if (!g) {
      // Snoozing before the next incident (a snooze restored after a restart, or on a cleared alert)
      // needs somewhere to live until the rule raises again; an id that names nothing has none.
      const key = parseAlertId(id);
      if (untilMs === null || key === null) return false;
      g = newGate(key.run, 1, untilMs);
      this.gates.set(id, g);
    }
    g.snoozedUntil = untilMs;
    if (g.active) {
      g.active = { ...g.active, snoozedUntil: untilMs };
      this.sink?.update(g.active);
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

  private notifies(g: Gate, now: number): boolean {
    const snoozed = g.snoozedUntil !== null && now < g.snoozedUntil;
    return !snoozed && !(g.active?.acknowledged ?? false);
  }

  private clear(g: Gate, step: number, value: number, now: number): AlertTransition {
    const alert = g.active!;
    const notify = this.notifies(g, now);
    g.active = null;
    g.bad = g.crit = g.ok = 0;
    g.sinceClear = 0;
    return this.emit({ kind: 'cleared', alert, step, value, at: now, notify });
  }

  private emit(t: AlertTransition): AlertTransition {
    this.sink?.record(t);
    return t;
  }
}
