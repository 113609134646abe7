// The cross-node rules of a job: a node silent (or its trainer exited) while others move, its agent unreachable, a straggler, idle GPUs.

import type { JobNode, JobNodeState, JobRule } from '../../shared/job-types';
import type { Severity } from '../../shared/domain';
import { formatDuration } from '../../shared/charts/axis';
import type { NodeFacts } from '../../shared/node-facts';
import { lastWriteOf, type JobGroup, type JobMember } from './job-grouping';

export interface JobRuleOptions {
  /** A node that wrote nothing for this long while another node of its job still writes at its rhythm is silent. */
  silentAfterMs: number;
  /** A node still writes at its own rhythm while its newest write is within advanceIntervals of its own write
   * intervals (its session's mean), at least advanceMinMs (a head sees remote writes late), at most half of
   * silentAfterMs. Nodes that all stopped within that of each other are the whole job stopping. */
  advanceIntervals: number;
  advanceMinMs: number;
  /** A node whose endpoint has not answered for this long, while another node's does, has its agent unreachable
   * (a restarting agent is back within it). */
  unreachableAfterMs: number;
  /** A node further behind the job's lead than max(skewMinSteps, skewFraction × lead step, 3 × the coarsest
   * logging interval of the job) is a straggler once it has logged a newer step while that far behind (a node
   * that stopped is not behind: it waits for the silent rule); it stops being one within half that bound. */
  skewMinSteps: number;
  skewFraction: number;
  /** A node whose mean GPU utilisation stays under idleBelowPct for idleForMs, while the other nodes' mean is at
   * least busyAbovePct, has idle GPUs. */
  idleBelowPct: number;
  busyAbovePct: number;
  idleForMs: number;
}

export const DEFAULT_JOB_RULES: JobRuleOptions = {
  silentAfterMs: 120_000,
  advanceIntervals: 4,
  advanceMinMs: 15_000,
  unreachableAfterMs: 30_000,
  skewMinSteps: 50,
  skewFraction: 0.1,
  idleBelowPct: 10,
  busyAbovePct: 40,
  idleForMs: 60_000,
};

export const JOB_RULE_SEVERITY: Record<JobRule, Severity> = {
  'job-node-silent': 'critical',
  'job-node-exited': 'critical',
  'job-agent-unreachable': 'critical',
  'job-step-skew': 'warning',
  'job-node-gpus-idle': 'warning',
};

/** One rule holding for one node now. */
export interface JobFinding {
  job: string;
  rule: JobRule;
  node: string;
  run: string;
  step: number | null;
  /** Seconds since epoch of the node's newest write, null before any. */
  wallTime: number | null;
  /** Seconds silent (or unreachable), steps behind, or GPU utilisation (%). */
  value: number;
  /** The others' figure it was judged against: the lead step, or the other nodes' mean GPU utilisation. */
  reference: number | null;
  message: string;
}

/** A finding's identity across evaluations. */
export const findingKey = (f: Pick<JobFinding, 'job' | 'rule' | 'node'>): string =>
  `${f.job}\u0000${f.rule}\u0000${f.node}`;

const stepOf = (m: JobMember): number | null => {
  const s = m.run.sessions[m.run.sessions.length - 1];
  return s ? s.endStep : null;
};

/** Steps between two logged points of the node's current session (its logging interval), null when unknown. */
const loggingInterval = (m: JobMember): number | null => {
  const s = m.run.sessions[m.run.sessions.length - 1];
  return s && s.points > 1 ? (s.endStep - s.startStep) / (s.points - 1) : null;
};

/** ms between two logged points of the node's current session (its write interval), null when unknown. */
const writeInterval = (m: JobMember): number | null => {
  const s = m.run.sessions[m.run.sessions.length - 1];
  if (!s || s.points < 2 || s.startWall === null || s.endWall === null) return null;
  const ms = ((s.endWall - s.startWall) * 1000) / (s.points - 1);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
};

const seconds = (ms: number): string => formatDuration(Math.round(ms / 1000));

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

export interface JobVerdict {
  nodes: Omit<JobNode, 'worstAlert'>[];
  findings: JobFinding[];
  /** Why each finding that held at the last evaluation and holds no more ended (by `findingKey`), in words. */
  ended: Map<string, string>;
}

/** Judges jobs, remembering what was active (a straggler clears within half its bound), since when GPUs idle, and
 * at which step a node was first seen past the skew bound (it is a straggler once it logs a newer one). */
export class JobRules {
  private active = new Set<string>();
  private readonly idleSince = new Map<string, number>();
  private readonly skewFrom = new Map<string, number>();

  constructor(private readonly opts: JobRuleOptions = DEFAULT_JOB_RULES) {}

  evaluate(
    groups: readonly JobGroup[],
    facts: (m: JobMember) => NodeFacts,
    now: number,
  ): Map<string, JobVerdict> {
    const out = new Map<string, JobVerdict>();
    const active = new Set<string>();
    const seen = new Set<string>();
    for (const g of groups) {
      const v = this.judge(g, facts, now, seen);
      for (const f of v.findings) active.add(findingKey(f));
      out.set(g.name, v);
    }
    // A finding whose node (or whole job) is gone ended too; its job's verdict (if any) says so.
    for (const k of this.active) {
      if (active.has(k)) continue;
      const [job, , node] = k.split('\u0000') as [string, string, string];
      const v = out.get(job);
      if (v && !v.ended.has(k)) v.ended.set(k, `node ${node} is no longer in job ${job}`);
      if (!v) out.set(job, { nodes: [], findings: [], ended: new Map([[k, `job ${job} is gone`]]) });
    }
    this.active = active;
    for (const m of [this.idleSince, this.skewFrom]) for (const k of m.keys()) if (!seen.has(k)) m.delete(k);
    return out;
  }

  private judge(g: JobGroup, facts: (m: JobMember) => NodeFacts, now: number, seen: Set<string>): JobVerdict {
    const o = this.opts;
    const rows = g.members.map((m) => {
      const last = lastWriteOf(m.run);
      const interval = writeInterval(m);
      const advanceMs = Math.min(
        o.silentAfterMs / 2,
        Math.max(o.advanceMinMs, interval === null ? 0 : o.advanceIntervals * interval),
      );
      const f = facts(m);
      return {
        m,
        f,
        step: stepOf(m),
        last,
        finished: m.run.ended === 'finished',
        // A node whose agent does not answer is not known to move: its last write is only as last seen.
        moving: f.connected && last !== null && now - last <= o.silentAfterMs,
        /** Still writing at its own rhythm (not merely within the silent window). */
        advancing: f.connected && last !== null && now - last <= advanceMs,
        state: 'quiet' as JobNodeState,
      };
    });
    type Row = (typeof rows)[number];
    const findings: JobFinding[] = [];
    const add = (r: Row, rule: JobRule, value: number, reference: number | null, message: string): void => {
      findings.push({
        job: g.name,
        rule,
        node: r.m.node,
        run: r.m.run.run,
        step: r.step,
        wallTime: r.last === null ? null : r.last / 1000,
        value,
        reference,
        message,
      });
    };
    const key = (rule: JobRule, node: string): string => findingKey({ job: g.name, rule, node });
    const was = (rule: JobRule, node: string): boolean => this.active.has(key(rule, node));
    const unfinished = rows.filter((r) => !r.finished);
    for (const r of rows) r.state = r.finished ? 'finished' : r.moving ? 'moving' : 'quiet';

    // Silent: nothing written for silentAfterMs while another unfinished node still writes at its own rhythm. Nodes
    // that stop within seconds of each other are the whole job stopping (no node still writes then), not one node:
    // they stay quiet and the run-level stall rule speaks. Once raised it holds until the node writes or finishes.
    const movers = unfinished.filter((r) => r.moving);
    const advancing = unfinished.filter((r) => r.advancing);
    for (const r of unfinished) {
      if (r.moving || r.last === null) continue;
      const others = movers.filter((x) => x !== r);
      // Its trainer seen gone by its agent: no hang, whatever the rule said before (job-node-exited).
      const gone = trainerGone(r.m);
      const rule: JobRule = gone ? 'job-node-exited' : 'job-node-silent';
      const holds = was('job-node-silent', r.m.node) || was('job-node-exited', r.m.node);
      // Its agent does not answer: its writing is unknown (job-agent-unreachable below), unless it was already
      // silent (a firing alert never clears because its source went away).
      if (!holds && !r.f.connected) continue;
      if (!holds && !advancing.some((x) => x !== r)) continue;
      r.state = gone ? 'exited' : 'silent';
      const lead = Math.max(...others.map((x) => x.step ?? -Infinity));
      const behind =
        r.step !== null && Number.isFinite(lead) ? `; it is at step ${r.step}, the others at ${lead}` : '';
      if (gone) {
        add(
          r,
          rule,
          (now - r.last) / 1000,
          Number.isFinite(lead) ? lead : null,
          `Node ${r.m.node} of job ${g.name}: its trainer process exited (${gone}) and it has written nothing ` +
            `for ${seconds(now - r.last)} while ` +
            (others.length > 0
              ? `${others.length} other node${others.length > 1 ? 's' : ''} kept writing`
              : 'the others were writing') +
            `${behind}.`,
        );
        continue;
      }
      add(
        r,
        rule,
        (now - r.last) / 1000,
        Number.isFinite(lead) ? lead : null,
        `Node ${r.m.node} of job ${g.name} has written nothing for ${seconds(now - r.last)} while ` +
          (others.length > 0
            ? `${others.length} other node${others.length > 1 ? 's' : ''} kept writing`
            : 'the others were writing') +
          `${behind}.`,
      );
    }

    // Its agent unreachable: whether it writes is unknown. Shown at once; raised once it has not answered for
    // unreachableAfterMs while another node's agent answers, and held until it answers or its run finished.
    const answering = unfinished.filter((r) => r.f.connected);
    for (const r of unfinished) {
      if (r.f.connected) continue;
      r.state = 'unreachable';
      const away = now - (r.f.awaySince ?? now);
      const holds = was('job-agent-unreachable', r.m.node);
      if (!holds && (answering.length === 0 || away < o.unreachableAfterMs)) continue;
      const lastSeen =
        r.last === null
          ? 'nothing written as last seen'
          : `its newest write as last seen ${seconds(now - r.last)} ago${r.step !== null ? ` at step ${r.step}` : ''}`;
      add(
        r,
        'job-agent-unreachable',
        away / 1000,
        null,
        `Node ${r.m.node} of job ${g.name}: its agent${r.m.host ? ` (${r.m.host})` : ''} has not answered for ` +
          `${seconds(away)}; whether it still writes is unknown (${lastSeen}).`,
      );
    }

    // Step skew among the nodes within the silent window: the silent one is reported as silent, not as a straggler.
    // A node first seen past the bound is a straggler only once it logs a newer step (a node that stopped is not
    // behind: it waits for the silent rule); a raised straggler that stops stays one until the silent rule takes
    // over, so the handover never shows a healthy node in between. A node whose agent does not answer never moves.
    const stepped = movers.filter((r) => r.step !== null);
    const lead = stepped.length >= 2 ? Math.max(...stepped.map((r) => r.step!)) : null;
    const coarsest = Math.max(0, ...stepped.map((r) => loggingInterval(r.m) ?? 0));
    const bound = lead === null ? 0 : Math.max(o.skewMinSteps, o.skewFraction * lead, 3 * coarsest);
    if (lead !== null)
      for (const r of unfinished) {
        if (r.step === null) continue;
        const behind = lead - r.step;
        const k = key('job-step-skew', r.m.node);
        const held = was('job-step-skew', r.m.node);
        if (behind <= (held ? bound / 2 : bound)) continue;
        // Seen past the bound at this step (a silent node too: once it writes again, that newer step counts).
        seen.add(k);
        const from = this.skewFrom.get(k) ?? r.step;
        this.skewFrom.set(k, from);
        if (!r.moving || (!held && r.step <= from)) continue;
        r.state = 'straggler';
        add(
          r,
          'job-step-skew',
          behind,
          lead,
          `Node ${r.m.node} of job ${g.name} is ${behind} steps behind the lead (step ${r.step} against ${lead}; ` +
            `bound ${Math.round(bound)}).`,
        );
      }

    // Idle GPUs: one node under idleBelowPct for idleForMs while the others' mean is busy.
    const gpu = unfinished.filter(
      (r) => r.f.gpuUtilPct !== null && r.state !== 'silent' && r.state !== 'exited',
    );
    const busyOf = new Map<Row, number>();
    for (const r of gpu) {
      const others = gpu.filter((x) => x !== r).map((x) => x.f.gpuUtilPct!);
      if (others.length === 0) continue;
      const busy = mean(others);
      busyOf.set(r, busy);
      const k = key('job-node-gpus-idle', r.m.node);
      if (r.f.gpuUtilPct! >= o.idleBelowPct || busy < o.busyAbovePct) continue;
      seen.add(k);
      const since = this.idleSince.get(k) ?? now;
      this.idleSince.set(k, since);
      if (now - since < o.idleForMs) continue;
      if (r.state === 'moving' || r.state === 'quiet') r.state = 'gpus-idle';
      add(
        r,
        'job-node-gpus-idle',
        r.f.gpuUtilPct!,
        busy,
        `Node ${r.m.node} of job ${g.name}: its GPUs are at ${r.f.gpuUtilPct!.toFixed(0)} % for ${seconds(now - since)} ` +
          `while the other nodes' average ${busy.toFixed(0)} %.`,
      );
    }

    // Why each finding that held and holds no more ended: the cleared alert says it instead of its firing text.
    const holding = new Set(findings.map(findingKey));
    const ended = new Map<string, string>();
    const because = (rule: JobRule, r: Row): string => {
      const n = `node ${r.m.node}`;
      if (r.finished) return `${n} finished`;
      if (r.state === 'silent' || r.state === 'exited')
        return `handed over to job-node-${r.state}: ${n} has written nothing for ${seconds(now - r.last!)}`;
      if (r.state === 'unreachable' && rule !== 'job-agent-unreachable')
        return `handed over to job-agent-unreachable: ${n}'s agent does not answer`;
      if (rule === 'job-agent-unreachable') return `${n}'s agent answers again`;
      if (rule === 'job-node-silent' || rule === 'job-node-exited')
        return r.moving ? `${n} is writing again (step ${r.step ?? '?'})` : `${n} is no longer judged`;
      if (!r.moving) return `${n} stopped writing along with the rest of job ${g.name}`;
      if (rule === 'job-step-skew')
        return lead === null || r.step === null
          ? `no other node of job ${g.name} is writing to compare ${n} with`
          : `${n} caught up (${lead - r.step} steps behind the lead, within ${Math.round(bound / 2)})`;
      const busy = busyOf.get(r);
      if (r.f.gpuUtilPct === null) return `${n} no longer reports its GPU utilisation`;
      if (busy === undefined) return `no other node's GPUs to compare ${n} with`;
      if (r.f.gpuUtilPct >= o.idleBelowPct) return `${n}'s GPUs are at ${r.f.gpuUtilPct.toFixed(0)} % again`;
      return `the other nodes' GPUs are idle too (${busy.toFixed(0)} % on average)`;
    };
    for (const r of rows)
      for (const rule of [
        'job-node-silent',
        'job-node-exited',
        'job-agent-unreachable',
        'job-step-skew',
        'job-node-gpus-idle',
      ] as const) {
        const k = key(rule, r.m.node);
        if (this.active.has(k) && !holding.has(k)) ended.set(k, because(rule, r));
      }

    return {
      findings,
      ended,
      nodes: rows.map((r) => ({
        node: r.m.node,
        host: r.m.host,
        run: r.m.run.run,
        step: r.step,
        lastWriteAt: r.last,
        connected: r.f.connected,
        gpuUtilPct: r.f.gpuUtilPct,
        state: r.state,
      })),
    };
  }
}

/** Why a node's trainer is known gone, in words (its agent saw its process exit, or a traceback ends its log); null
 * when it is not known gone (a hang or a stop not known: the silent rule's advice holds). */
function trainerGone(m: JobMember): string | null {
  if (m.run.trainer?.state === 'exited') return 'its agent saw it end';
  if (m.run.stop?.state === 'crashed' || m.run.ended === 'crashed') return 'it crashed';
  return null;
}

/** What to do about each cross-node finding (shown with its alert). */
export const JOB_RULE_ADVICE: Record<JobRule, string> = {
  'job-node-silent':
    "Look at that node's trainer log and process first: a rank stuck in a collective blocks the whole job at its " +
    'next synchronisation. `py-spy dump --pid PID` shows where it waits; NCCL_DEBUG=INFO and ' +
    'TORCH_NCCL_ASYNC_ERROR_HANDLING=1 (with a collective timeout) make a hang fail fast instead of stalling.',
  'job-node-exited':
    'Its trainer is gone, not hung: read the end of its log (a traceback; the OOM killer in `dmesg`) and restart ' +
    'the job from its last checkpoint. The other ranks wait at their next collective until their timeout.',
  'job-agent-unreachable':
    'Check the rlwatch agent on that node (is it running, is the node up, can this machine reach it). Its trainer ' +
    'may be fine and only unwatched: look at the node before treating the job as hung.',
  'job-step-skew':
    'A straggler: compare its GPU utilisation, clocks and temperature (thermal throttling), its data loading and ' +
    'its neighbours on the host with the other nodes. Synchronous training runs at the pace of its slowest rank.',
  'job-node-gpus-idle':
    'Its GPUs wait while the others work: its workers may be starved of data, blocked in a collective, or dead ' +
    'while the process lives. Check `nvidia-smi` and the trainer log on that node.',
};
