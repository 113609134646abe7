// The jobs of an app (or `watch`): grouping and cross-node rules over the merged run list, their alerts, ack/snooze.

import type { AlertChange, AlertInfo, RunInfo } from '../../shared/domain';
import { worseSeverity } from '../../shared/domain';
import { JOB_ALERT_PREFIX, type JobInfo, type JobNode } from '../../shared/job-types';
import { ApiError } from '../../shared/result';
import { groupJobs, type JobMember } from './job-grouping';
import {
  DEFAULT_JOB_RULES,
  findingKey,
  JOB_RULE_ADVICE,
  JOB_RULE_SEVERITY,
  JobRules,
  type JobFinding,
  type JobRuleOptions,
} from './job-rules';
import type { NodeFacts } from '../../shared/node-facts';

export interface JobMonitorOptions {
  clock: () => number;
  rules?: Partial<JobRuleOptions>;
  /** The jobs as shown changed (membership, a node's state, step or alert). */
  jobsChanged(jobs: JobInfo[]): void;
  /** A job alert was raised, cleared or updated (ack, snooze). */
  alertChanged(change: AlertChange): void;
}

/** An open alert's changing text (silent for N s) is pushed at most this often. */
export const UPDATE_MS = 15_000;

/** Cleared job alerts kept for `alerts.list` (the newest). */
const MAX_CLEARED = 500;

export class JobMonitor {
  private readonly rules: JobRules;
  private readonly open = new Map<string, AlertInfo>();
  /** When each open alert's text was last pushed as an update. */
  private readonly told = new Map<string, number>();
  private cleared: AlertInfo[] = [];
  private shown: JobInfo[] = [];
  private shownKey = '[]';

  constructor(private readonly opts: JobMonitorOptions) {
    this.rules = new JobRules({ ...DEFAULT_JOB_RULES, ...opts.rules });
  }

  /** Judges the jobs among `runs` now: raises and clears their alerts, and says when the jobs as shown changed. */
  update(runs: readonly RunInfo[], facts: (m: JobMember) => NodeFacts): void {
    const now = this.opts.clock();
    const groups = groupJobs(runs);
    const verdicts = this.rules.evaluate(groups, facts, now);
    const holding = new Set<string>();
    const changes: AlertChange[] = [];
    for (const v of verdicts.values())
      for (const f of v.findings) {
        const key = findingKey(f);
        holding.add(key);
        const had = this.open.get(key);
        if (had) {
          const next = { ...had, value: f.value, message: f.message };
          this.open.set(key, next);
          // What it says moves on (how long silent, how far behind): the window hears it, at most every UPDATE_MS.
          if (next.message !== had.message && now - (this.told.get(key) ?? had.raisedAt) >= UPDATE_MS) {
            this.told.set(key, now);
            changes.push({ kind: 'updated', alert: next });
          }
        } else {
          const alert = this.raise(f, now);
          this.open.set(key, alert);
          changes.push({ kind: 'raised', alert });
        }
      }
    const ended = new Map([...verdicts.values()].flatMap((v) => [...v.ended]));
    for (const [key, a] of this.open) {
      if (holding.has(key)) continue;
      this.open.delete(key);
      this.told.delete(key);
      const because = ended.get(key);
      const done: AlertInfo = {
        ...a,
        active: false,
        clearedAt: now,
        ...(because !== undefined ? { clearedBecause: because } : {}),
      };
      this.cleared.push(done);
      changes.push({ kind: 'cleared', alert: done });
    }
    if (this.cleared.length > MAX_CLEARED) this.cleared = this.cleared.slice(-MAX_CLEARED);

    this.shown = groups.map((g) => {
      const nodes: JobNode[] = verdicts.get(g.name)!.nodes.map((n, i) => ({
        ...n,
        worstAlert: [...this.open.values()]
          .filter((a) => a.run === n.run)
          .reduce((w, a) => worseSeverity(w, a.severity), g.members[i]!.run.worstAlert),
      }));
      const steps = nodes.filter((n) => n.state !== 'finished' && n.step !== null).map((n) => n.step!);
      return {
        name: g.name,
        grouping: g.grouping,
        nodes,
        stepMin: steps.length > 0 ? Math.min(...steps) : null,
        stepMax: steps.length > 0 ? Math.max(...steps) : null,
        worstAlert: nodes.reduce<JobInfo['worstAlert']>((w, n) => worseSeverity(w, n.worstAlert), null),
      };
    });
    for (const c of changes) this.opts.alertChanged(c);
    const key = JSON.stringify(this.shown);
    if (key !== this.shownKey) {
      this.shownKey = key;
      this.opts.jobsChanged(this.shown);
    }
  }

  jobs(): JobInfo[] {
    return this.shown;
  }

  /** Job alerts, open first then cleared (newest first); about one node's run when `run` is given. */
  alerts(run?: string): AlertInfo[] {
    const all = [...this.open.values(), ...[...this.cleared].reverse()];
    return run === undefined ? all : all.filter((a) => a.run === run);
  }

  activeAlerts(): AlertInfo[] {
    return [...this.open.values()];
  }

  /** Whether an alert id is a job alert's (then ack and snooze come here). */
  owns(id: string): boolean {
    return id.startsWith(JOB_ALERT_PREFIX);
  }

  ack(id: string): AlertInfo {
    return this.patch(id, { acknowledged: true });
  }

  snooze(id: string, minutes: number): AlertInfo {
    return this.patch(id, { snoozedUntil: this.opts.clock() + minutes * 60_000 });
  }

  private patch(id: string, p: Partial<AlertInfo>): AlertInfo {
    for (const [key, a] of this.open)
      if (a.id === id) {
        const next = { ...a, ...p };
        this.open.set(key, next);
        this.opts.alertChanged({ kind: 'updated', alert: next });
        return next;
      }
    const at = this.cleared.findIndex((a) => a.id === id);
    if (at < 0) throw new ApiError('not-found', `no job alert ${id}`);
    const next = { ...this.cleared[at]!, ...p };
    this.cleared[at] = next;
    this.opts.alertChanged({ kind: 'updated', alert: next });
    return next;
  }

  private raise(f: JobFinding, now: number): AlertInfo {
    return {
      id: `${JOB_ALERT_PREFIX}${f.rule}:${f.job}:${f.node}:${now}`,
      rule: f.rule,
      severity: JOB_RULE_SEVERITY[f.rule],
      run: f.run,
      tag: null,
      tags: [],
      step: f.step ?? 0,
      wallTime: f.wallTime,
      value: f.value,
      statistic: null,
      message: f.message,
      advice: JOB_RULE_ADVICE[f.rule],
      raisedAt: now,
      acknowledged: false,
      snoozedUntil: null,
      active: true,
      clearedAt: null,
      clearedStep: null,
      clearedWallTime: null,
    };
  }
}
