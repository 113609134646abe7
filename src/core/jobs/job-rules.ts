// The cross-node rules of a job: a node silent (or its trainer exited) while others move, its agent unreachable, a straggler, idle GPUs.

import type { JobNode, JobNodeState, JobRule } from '../../shared/job-types';
import type { Severity } from '../../shared/domain';
import { formatDuration } from '../../shared/charts/axis';
import type { NodeFacts } from '../../shared/node-facts';
import { lastWriteOf, type JobGroup, type JobMember } from './job-grouping';

export interface JobRuleOptions {
  /** A node that wrote nothing for this long while another node of its job wrote is silent. */
  silentAfterMs: number;
  /** A node whose endpoint has not answered for this long, while another node's does, has its agent unreachable
   * (a restarting agent is back within it). */
  unreachableAfterMs: number;
  /** A node further behind the job's lead than max(skewMinSteps, skewFraction × lead step, 3 × the coarsest
   * logging interval of the job) is a straggler; it stops being one within half that bound. */
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

const seconds = (ms: number): string => formatDuration(Math.round(ms / 1000));

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

export interface JobVerdict {
  nodes: Omit<JobNode, 'worstAlert'>[];
  findings: JobFinding[];
}

/** Judges jobs, remembering what was active (a straggler clears within half its bound) and since when GPUs idle. */
export class JobRules {
  private active = new Set<string>();
  private readonly idleSince = new Map<string, number>();

  constructor(private readonly opts: JobRuleOptions = DEFAULT_JOB_RULES) {}

  evaluate(
    groups: readonly JobGroup[],
    facts: (m: JobMember) => NodeFacts,
    now: number,
  ): Map<string, JobVerdict> {
    const out = new Map<string, JobVerdict>();
    const active = new Set<string>();
    const idleSeen = new Set<string>();
    for (const g of groups) {
      const v = this.judge(g, facts, now, idleSeen);
      for (const f of v.findings) active.add(findingKey(f));
      out.set(g.name, v);
    }
    this.active = active;
    for (const k of this.idleSince.keys()) if (!idleSeen.has(k)) this.idleSince.delete(k);
    return out;
  }

  private judge(
    g: JobGroup,
    facts: (m: JobMember) => NodeFacts,
    now: number,
    idleSeen: Set<string>,
  ): JobVerdict {
    const o = this.opts;
    const rows = g.members.map((m) => {
      const last = lastWriteOf(m.run);
      const f = facts(m);
      return {
        m,
        f,
        step: stepOf(m),
        last,
        finished: m.run.ended === 'finished',
        // A node whose agent does not answer is not known to move: its last write is only as last seen.
        moving: f.connected && last !== null && now - last <= o.silentAfterMs,
        state: 'quiet' as JobNodeState,
      };
    });
    const findings: JobFinding[] = [];
    const add = (
      r: (typeof rows)[number],
      rule: JobRule,
      value: number,
      reference: number | null,
      message: string,
    ): void => {
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
    const was = (rule: JobRule, node: string): boolean =>
      this.active.has(findingKey({ job: g.name, rule, node }));
    const unfinished = rows.filter((r) => !r.finished);
    for (const r of rows) r.state = r.finished ? 'finished' : r.moving ? 'moving' : 'quiet';

    // Silent: quiet while another unfinished node moves, and silentAfterMs behind the newest write of the job (nodes
    // that stop seconds apart are the whole job stopping, not one node); once raised it holds until the node
    // writes or finishes.
    const movers = unfinished.filter((r) => r.moving);
    const newest = Math.max(...unfinished.map((r) => r.last ?? -Infinity));
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
      if (!holds && (others.length === 0 || newest - r.last <= o.silentAfterMs)) continue;
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
          `${r.f.connected ? '' : ' (its endpoint is not connected)'}${behind}.`,
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
      const seen =
        r.last === null
          ? 'nothing written as last seen'
          : `its newest write as last seen ${seconds(now - r.last)} ago${r.step !== null ? ` at step ${r.step}` : ''}`;
      add(
        r,
        'job-agent-unreachable',
        away / 1000,
        null,
        `Node ${r.m.node} of job ${g.name}: its agent${r.m.host ? ` (${r.m.host})` : ''} has not answered for ` +
          `${seconds(away)}; whether it still writes is unknown (${seen}).`,
      );
    }

    // Step skew among the moving nodes: the silent one is reported as silent, not as a straggler.
    const stepped = movers.filter((r) => r.step !== null);
    if (stepped.length >= 2) {
      const lead = Math.max(...stepped.map((r) => r.step!));
      const coarsest = Math.max(0, ...stepped.map((r) => loggingInterval(r.m) ?? 0));
      const bound = Math.max(o.skewMinSteps, o.skewFraction * lead, 3 * coarsest);
      for (const r of stepped) {
        const behind = lead - r.step!;
        const limit = was('job-step-skew', r.m.node) ? bound / 2 : bound;
        if (behind <= limit) continue;
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
    }

    // Idle GPUs: one node under idleBelowPct for idleForMs while the others' mean is busy.
    const gpu = unfinished.filter(
      (r) => r.f.gpuUtilPct !== null && r.state !== 'silent' && r.state !== 'exited',
    );
    for (const r of gpu) {
      const others = gpu.filter((x) => x !== r).map((x) => x.f.gpuUtilPct!);
      if (others.length === 0) continue;
      const busy = mean(others);
      const key = findingKey({ job: g.name, rule: 'job-node-gpus-idle', node: r.m.node });
      if (r.f.gpuUtilPct! >= o.idleBelowPct || busy < o.busyAbovePct) continue;
      idleSeen.add(key);
      const since = this.idleSince.get(key) ?? now;
      this.idleSince.set(key, since);
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

    return {
      findings,
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
