// Jobs: grouping runs of several endpoints, the cross-node rules (silent node, step skew, idle GPUs) and their alerts.

import { describe, expect, test } from 'vitest';
import type { AlertChange, RunInfo } from '../../../src/shared/domain';
import type { JobInfo } from '../../../src/shared/job-types';
import type { SystemSnapshot } from '../../../src/shared/system-types';
import { groupJobs, MAX_JOBS, STARTED_TOGETHER_MS } from '../../../src/core/jobs/job-grouping';
import { JobMonitor, UPDATE_MS } from '../../../src/core/jobs/job-monitor';
import { DEFAULT_JOB_RULES } from '../../../src/core/jobs/job-rules';
import { localNodeFacts, meanGpuUtilisation, type NodeFacts } from '../../../src/shared/node-facts';

const T0 = 1_790_000_000_000;

/** A run of `host` (null: local) at `step`, last written at `lastMs`, its session begun at `startMs`. */
function run(
  host: string | null,
  name: string,
  o: {
    step?: number;
    lastMs?: number;
    startMs?: number;
    job?: string;
    node?: string;
    ended?: 'finished';
    points?: number;
  },
): RunInfo {
  const step = o.step ?? 100;
  return {
    run: host === null ? name : `${host}//${name}`,
    sources: [],
    tags: ['reward'],
    points: o.points ?? step + 1,
    lastEventAt: o.lastMs ?? T0,
    fileWrittenAt: o.lastMs ?? T0,
    progress: null,
    loaded: true,
    restarts: 0,
    sessions: [
      {
        index: 1,
        startStep: 0,
        endStep: step,
        startWall: (o.startMs ?? T0 - 600_000) / 1000,
        endWall: (o.lastMs ?? T0) / 1000,
        points: o.points ?? step + 1,
      },
    ],
    worstAlert: null,
    stalled: false,
    ...(o.ended ? { ended: o.ended } : {}),
    ...(host !== null ? { host } : {}),
    ...(o.job !== undefined ? { job: o.job, node: o.node ?? host ?? 'local' } : {}),
  };
}

const up: NodeFacts = { connected: true, gpuUtilPct: null };

function monitor(now: { t: number }, facts: (host: string | null) => NodeFacts = () => up) {
  const changes: AlertChange[] = [];
  const shown: JobInfo[][] = [];
  const m = new JobMonitor({
    clock: () => now.t,
    rules: { idleForMs: 30_000 },
    jobsChanged: (j) => shown.push(j),
    alertChanged: (c) => changes.push(c),
  });
  return { m, changes, shown, update: (runs: RunInfo[]) => m.update(runs, (x) => facts(x.host)) };
}

describe('grouping runs into jobs', () => {
  test('an explicit --job groups its nodes across endpoints, one run per node (its newest)', () => {
    const jobs = groupJobs([
      run('10.0.0.1:7070', 'grpo', { job: 'grpo-3n', node: 'a' }),
      run('10.0.0.2:7070', 'grpo', { job: 'grpo-3n', node: 'b' }),
      run('10.0.0.2:7070', 'old', { job: 'grpo-3n', node: 'b', lastMs: T0 - 86_400_000 }),
      run('10.0.0.3:7070', 'grpo', { job: 'grpo-3n', node: 'c' }),
      run('10.0.0.3:7070', 'other', {}),
    ]);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.name).toBe('grpo-3n');
    expect(jobs[0]!.grouping).toBe('named');
    expect(jobs[0]!.members.map((m) => [m.node, m.run.run])).toEqual([
      ['a', '10.0.0.1:7070//grpo'],
      ['b', '10.0.0.2:7070//grpo'],
      ['c', '10.0.0.3:7070//grpo'],
    ]);
  });

  test('a named job of one node is still a job (its agent said so)', () => {
    expect(groupJobs([run(null, 'grpo', { job: 'solo', node: 'here' })]).map((j) => j.name)).toEqual([
      'solo',
    ]);
  });

  test('the same run name on several endpoints started together is a job; apart in time, or on one endpoint, it is not', () => {
    const together = groupJobs([
      run('h1:1', 'ppo', { startMs: T0 - 600_000 }),
      run('h2:1', 'ppo', { startMs: T0 - 590_000 }),
      run(null, 'ppo', { startMs: T0 - 580_000 }),
    ]);
    expect(together.map((j) => [j.name, j.grouping, j.members.length])).toEqual([['ppo', 'run-name', 3]]);
    expect(together[0]!.members.map((m) => m.node)).toEqual(['h1:1', 'h2:1', 'this machine']);

    const apart = groupJobs([
      run('h1:1', 'ppo', { startMs: T0 - 2 * STARTED_TOGETHER_MS }),
      run('h2:1', 'ppo', { startMs: T0 }),
    ]);
    expect(apart).toEqual([]);
    expect(groupJobs([run('h1:1', 'ppo', {})])).toEqual([]);
  });

  test('a flood of job names keeps the MAX_JOBS jobs with most nodes', () => {
    const flood = Array.from({ length: 3000 }, (_, i) => run('h:1', `r${i}`, { job: `job-${i}`, node: 'n' }));
    const real = ['a:1', 'b:1', 'c:1'].map((h) => run(h, 'grpo', { job: 'real', node: h }));
    const jobs = groupJobs([...flood, ...real]);
    expect(jobs).toHaveLength(MAX_JOBS);
    expect(jobs.find((j) => j.name === 'real')?.members).toHaveLength(3);
  });

  test('two endpoints giving the same node name stay two nodes, told apart by their endpoint', () => {
    const [job] = groupJobs([
      run('h1:1', 'x', { job: 'j', node: 'gpu-node' }),
      run('h2:1', 'x', { job: 'j', node: 'gpu-node' }),
    ]);
    expect(job!.members.map((m) => m.node)).toEqual(['gpu-node (h1:1)', 'gpu-node (h2:1)']);
  });
});

describe('cross-node rules', () => {
  const three = (o: { cLast?: number; cStep?: number; aStep?: number }, t: number): RunInfo[] => [
    run('a:1', 'grpo', { job: 'j', node: 'a', lastMs: t, step: o.aStep ?? 1500 }),
    run('b:1', 'grpo', { job: 'j', node: 'b', lastMs: t, step: o.aStep ?? 1500 }),
    run('c:1', 'grpo', { job: 'j', node: 'c', lastMs: o.cLast ?? t, step: o.cStep ?? 1500 }),
  ];

  test('a node silent while the others move raises one critical naming it, cleared when it writes again', () => {
    const now = { t: T0 };
    const { m, changes, update } = monitor(now);
    update(three({}, now.t));
    expect(changes).toEqual([]);
    const frozeAt = now.t;
    now.t += DEFAULT_JOB_RULES.silentAfterMs + 10_000;
    update(three({ cLast: frozeAt, cStep: 1200, aStep: 1510 }, now.t));
    expect(changes.map((c) => [c.kind, c.alert.rule, c.alert.severity, c.alert.run])).toEqual([
      ['raised', 'job-node-silent', 'critical', 'c:1//grpo'],
    ]);
    const alert = changes[0]!.alert;
    expect(alert.message).toContain(
      'Node c of job j has written nothing for 2m 10s while 2 other nodes kept writing',
    );
    expect(alert.message).toContain('step 1200, the others at 1510');
    expect(alert.value).toBe(130);
    expect(alert.advice).toMatch(/py-spy/);
    const job = m.jobs()[0]!;
    expect(job.nodes.map((n) => [n.node, n.state, n.worstAlert])).toEqual([
      ['a', 'moving', null],
      ['b', 'moving', null],
      ['c', 'silent', 'critical'],
    ]);
    expect(job.worstAlert).toBe('critical');
    // The silent node is not also called a straggler (its skew is the silence's consequence).
    now.t += 5000;
    update(three({ cLast: frozeAt, cStep: 1200, aStep: 1515 }, now.t));
    expect(changes).toHaveLength(1);
    // It writes again, still 300 steps behind: the silence clears and it is now a straggler.
    update(three({ cStep: 1201, aStep: 1515 }, now.t));
    expect(changes.slice(1).map((c) => [c.kind, c.alert.rule])).toEqual([
      ['raised', 'job-step-skew'],
      ['cleared', 'job-node-silent'],
    ]);
    expect(changes[2]!.alert.clearedBecause).toBe('node c is writing again (step 1201)');
    expect(m.activeAlerts().map((a) => a.rule)).toEqual(['job-step-skew']);
    // Caught up: nothing open.
    update(three({ cStep: 1515, aStep: 1515 }, now.t));
    expect(m.activeAlerts()).toEqual([]);
    expect(m.alerts().map((a) => [a.rule, a.active])).toEqual([
      ['job-step-skew', false],
      ['job-node-silent', false],
    ]);
  });

  test('every node quiet is no job finding (the run-level stall rule speaks); a node that finished is never silent', () => {
    const now = { t: T0 };
    const { m, changes, update } = monitor(now);
    now.t += 10 * DEFAULT_JOB_RULES.silentAfterMs;
    update(three({}, T0));
    expect(changes).toEqual([]);
    expect(m.jobs()[0]!.nodes.map((n) => n.state)).toEqual(['quiet', 'quiet', 'quiet']);
    update([
      run('a:1', 'grpo', { job: 'j', node: 'a', lastMs: now.t }),
      run('b:1', 'grpo', { job: 'j', node: 'b', lastMs: T0, ended: 'finished' }),
    ]);
    expect(changes).toEqual([]);
    expect(m.jobs()[0]!.nodes.map((n) => n.state)).toEqual(['moving', 'finished']);
  });

  test("an open alert's moving text is pushed as an update at most every UPDATE_MS", () => {
    const now = { t: T0 };
    const { m, changes, update } = monitor(now);
    now.t += DEFAULT_JOB_RULES.silentAfterMs + 1000;
    update(three({ cLast: T0 }, now.t));
    for (let i = 0; i < 6; i++) {
      now.t += 5000;
      update(three({ cLast: T0 }, now.t));
    }
    // 30 s after the raise: two updates (at 15 s and 30 s), each with the text as it stood.
    expect(changes.map((c) => c.kind)).toEqual(['raised', 'updated', 'updated']);
    expect(changes[2]!.alert.message).toContain('has written nothing for 2m 31s');
    expect(m.activeAlerts()[0]!.message).toContain('2m 31s');
    expect(UPDATE_MS).toBe(15_000);
  });

  test('nodes that stop seconds apart are the job stopping: the first to stop is never called silent', () => {
    const now = { t: T0 };
    const { changes, update } = monitor(now);
    // a and b stopped 10 s before c; now c is just inside the window and a, b just past it.
    now.t = T0 + DEFAULT_JOB_RULES.silentAfterMs + 5000;
    update(three({ cLast: T0 + 10_000 }, T0));
    update([
      run('a:1', 'grpo', { job: 'j', node: 'a', lastMs: T0 }),
      run('c:1', 'grpo', { job: 'j', node: 'c', lastMs: T0 + 10_000 }),
    ]);
    expect(changes).toEqual([]);
  });

  test('a raised silent node stays silent when the others stop too: no resolve while nothing moved', () => {
    const now = { t: T0 };
    const { changes, update } = monitor(now);
    now.t += DEFAULT_JOB_RULES.silentAfterMs + 1000;
    update(three({ cLast: T0 }, now.t));
    const othersLast = now.t;
    now.t += 10 * DEFAULT_JOB_RULES.silentAfterMs;
    update(three({ cLast: T0 }, othersLast));
    expect(changes.map((c) => c.kind)).toEqual(['raised', 'updated']);
  });

  test('step skew past max(50, 10 % of the lead, 3 logging intervals) flags the straggler; it clears within half the bound', () => {
    const now = { t: T0 };
    const { m, changes, update } = monitor(now);
    // Lead 1000: bound 100. 90 behind is fine, 150 behind is a straggler.
    update(three({ cStep: 910, aStep: 1000 }, now.t));
    expect(changes).toEqual([]);
    update(three({ cStep: 850, aStep: 1000 }, now.t));
    // First seen past the bound: a node that stopped is not behind, so only its next step makes it a straggler.
    expect(changes).toEqual([]);
    update(three({ cStep: 851, aStep: 1001 }, now.t));
    expect(changes.map((c) => [c.kind, c.alert.rule, c.alert.severity, c.alert.value])).toEqual([
      ['raised', 'job-step-skew', 'warning', 150],
    ]);
    expect(changes[0]!.alert.message).toBe(
      'Node c of job j is 150 steps behind the lead (step 851 against 1001; bound 100).',
    );
    expect(m.jobs()[0]!.nodes[2]!.state).toBe('straggler');
    // 80 behind: within the bound but not within half of it: still a straggler (no flapping at the edge).
    update(three({ cStep: 920, aStep: 1000 }, now.t));
    expect(changes).toHaveLength(1);
    update(three({ cStep: 960, aStep: 1000 }, now.t));
    expect(changes.map((c) => c.kind)).toEqual(['raised', 'cleared']);
    // The cleared alert says what cleared it, not its firing text again.
    expect(changes[1]!.alert.clearedBecause).toBe('node c caught up (40 steps behind the lead, within 50)');
  });

  test('an alert whose node left the job, or whose whole job is gone, clears saying so', () => {
    const now = { t: T0 };
    const { changes, update } = monitor(now);
    now.t += DEFAULT_JOB_RULES.silentAfterMs + 1000;
    update(three({ cLast: T0 }, now.t));
    update(three({}, now.t).slice(0, 2));
    expect(changes.map((c) => [c.kind, c.alert.clearedBecause])).toEqual([
      ['raised', undefined],
      ['cleared', 'node c is no longer in job j'],
    ]);
    update(three({ cLast: T0 }, now.t));
    update([]);
    expect(changes.slice(2).map((c) => [c.kind, c.alert.clearedBecause])).toEqual([
      ['raised', undefined],
      ['cleared', 'job j is gone'],
    ]);
  });

  test('a coarse logging interval widens the skew bound (a node logging every 100 steps is not a straggler)', () => {
    const now = { t: T0 };
    const { changes, update } = monitor(now);
    update([
      run('a:1', 'x', { job: 'j', node: 'a', step: 1000, points: 11 }),
      run('b:1', 'x', { job: 'j', node: 'b', step: 800, points: 9 }),
    ]);
    expect(changes).toEqual([]);
    update([
      run('a:1', 'x', { job: 'j', node: 'a', step: 1000, points: 11 }),
      run('b:1', 'x', { job: 'j', node: 'b', step: 600, points: 7 }),
    ]);
    expect(changes).toEqual([]);
    update([
      run('a:1', 'x', { job: 'j', node: 'a', step: 1100, points: 12 }),
      run('b:1', 'x', { job: 'j', node: 'b', step: 700, points: 8 }),
    ]);
    expect(changes.map((c) => c.alert.rule)).toEqual(['job-step-skew']);
  });

  test('idle GPUs on one node while the others work, held for idleForMs, raise a warning; it clears when they work', () => {
    const now = { t: T0 };
    const gpu = new Map<string | null, number | null>([
      ['a:1', 95],
      ['b:1', 90],
      ['c:1', 2],
    ]);
    const { m, changes, update } = monitor(now, (h) => ({ connected: true, gpuUtilPct: gpu.get(h) ?? null }));
    update(three({}, now.t));
    now.t += 20_000;
    update(three({}, now.t));
    expect(changes).toEqual([]);
    now.t += 15_000;
    update(three({}, now.t));
    expect(changes.map((c) => [c.alert.rule, c.alert.severity, c.alert.value, c.alert.run])).toEqual([
      ['job-node-gpus-idle', 'warning', 2, 'c:1//grpo'],
    ]);
    expect(changes[0]!.alert.message).toBe(
      "Node c of job j: its GPUs are at 2 % for 35s while the other nodes' average 93 %.",
    );
    expect(m.jobs()[0]!.nodes.map((n) => n.gpuUtilPct)).toEqual([95, 90, 2]);
    gpu.set('c:1', 80);
    update(three({}, now.t));
    expect(changes.map((c) => c.kind)).toEqual(['raised', 'cleared']);
    expect(changes[1]!.alert.clearedBecause).toBe("node c's GPUs are at 80 % again");
  });

  test('all GPUs idle together is no finding (nothing to compare against)', () => {
    const now = { t: T0 };
    const { changes, update } = monitor(now, () => ({ connected: true, gpuUtilPct: 1 }));
    for (let i = 0; i < 5; i++) {
      update(three({}, now.t));
      now.t += 30_000;
    }
    expect(changes).toEqual([]);
  });

  test('ack and snooze change the open alert and say so; an unknown id is not-found', () => {
    const now = { t: T0 };
    const { m, changes, update } = monitor(now);
    now.t += DEFAULT_JOB_RULES.silentAfterMs + 1000;
    update(three({ cLast: T0 }, now.t));
    const id = changes[0]!.alert.id;
    expect(m.owns(id)).toBe(true);
    expect(m.ack(id).acknowledged).toBe(true);
    expect(m.snooze(id, 10).snoozedUntil).toBe(now.t + 600_000);
    expect(changes.map((c) => c.kind)).toEqual(['raised', 'updated', 'updated']);
    expect(m.activeAlerts()[0]!.acknowledged).toBe(true);
    expect(() => m.ack('job:nope')).toThrow(/no job alert/);
  });

  test('jobsChanged fires only when the jobs as shown change', () => {
    const now = { t: T0 };
    const { shown, update } = monitor(now);
    update(three({}, now.t));
    update(three({}, now.t));
    expect(shown).toHaveLength(1);
    update(three({ aStep: 1501 }, now.t));
    expect(shown).toHaveLength(2);
  });

  test("mean GPU utilisation ignores missing figures; this machine's figures count only when fresh", () => {
    expect(meanGpuUtilisation([10, null, 30])).toBe(20);
    expect(meanGpuUtilisation([null])).toBe(null);
    expect(meanGpuUtilisation([])).toBe(null);
    const sample = {
      t: T0,
      gpus: [{ utilizationGpuPct: 40 }, { utilizationGpuPct: 60 }],
    } as unknown as SystemSnapshot;
    expect(localNodeFacts(sample, T0 + 1000)).toEqual({ connected: true, gpuUtilPct: 50 });
    expect(localNodeFacts({ ...sample, gpusStale: true }, T0 + 1000).gpuUtilPct).toBe(null);
    expect(localNodeFacts(sample, T0 + 60_000).gpuUtilPct).toBe(null);
    expect(localNodeFacts(null, T0).gpuUtilPct).toBe(null);
  });
});

describe('a node that stops, as a head sees it: silent first, never a straggler, no healthy moment in between', () => {
  /** The head sees each node's writes this late (run lists are pushed, at most once a second). */
  const LAG = 2000;
  const START = T0 - 600_000;
  type Fault = 'writer frozen' | 'writer killed' | 'agent frozen';

  /** A node writing one step every `everyMs` since START; the head sees its writes up to `seenUpTo`. */
  const nodeRun = (
    node: string,
    everyMs: number,
    seenUpTo: number,
    extra: Partial<RunInfo> = {},
  ): RunInfo => {
    const step = Math.floor((seenUpTo - START) / everyMs);
    return {
      ...run(`${node}:1`, 'grpo', {
        job: 'j',
        node,
        step,
        lastMs: START + step * everyMs,
        startMs: START,
        points: step + 1,
      }),
      ...extra,
    };
  };

  interface Tick {
    t: number;
    state: string;
    /** The rules of the active job alerts about node b's run. */
    open: string[];
  }

  /** Three nodes writing a step a second; node b's fault at T0; the head judges every second (between writes). */
  function simulate(fault: Fault, bEveryMs = 1000) {
    const now = { t: T0 - 30_000 + 500 };
    const connected = (h: string | null): NodeFacts =>
      fault === 'agent frozen' && h === 'b:1' && now.t > T0 + 10_000
        ? { connected: false, awaySince: T0 + 10_000, gpuUtilPct: null }
        : { connected: true, gpuUtilPct: null };
    const { m, changes, update } = monitor(now, connected);
    const ticks: Tick[] = [];
    const at: number[] = [];
    for (; now.t < T0 + 200_000; now.t += 1000) {
      const seen = now.t - LAG;
      const bStopped = fault === 'writer killed' && now.t > T0 + 25_000 ? { stalled: true } : {};
      const before = changes.length;
      update([
        nodeRun('a', 1000, seen),
        // The head sees nothing of b after T0: its writer stopped, or its agent froze while its trainer writes.
        nodeRun('b', bEveryMs, Math.min(seen, T0), bStopped),
        nodeRun('c', 1000, seen),
      ]);
      for (let i = before; i < changes.length; i++) if (changes[i]!.kind !== 'updated') at.push(now.t);
      ticks.push({
        t: now.t,
        state: m.jobs()[0]!.nodes[1]!.state,
        open: m
          .activeAlerts()
          .filter((a) => a.run === 'b:1//grpo')
          .map((a) => a.rule),
      });
    }
    // Raised and cleared only (an open alert's moving text is pushed as updates).
    return { changes: changes.filter((c) => c.kind !== 'updated'), ticks, at };
  }

  /** The states a node went through, each once per stretch. */
  const stretches = (ticks: Tick[]): string[] =>
    ticks.map((k) => k.state).filter((s, i, all) => i === 0 || all[i - 1] !== s);

  test.each<Fault>(['writer frozen', 'writer killed'])(
    '%s: the node goes from moving straight to silent; no step-skew alert, no quiet moment',
    (fault) => {
      const { changes, ticks, at } = simulate(fault);
      expect(changes.map((c) => [c.kind, c.alert.rule, c.alert.run])).toEqual([
        ['raised', 'job-node-silent', 'b:1//grpo'],
      ]);
      // Silent once it wrote nothing for silentAfterMs (as seen), not later: the others still write.
      expect(at[0]! - T0).toBeGreaterThan(DEFAULT_JOB_RULES.silentAfterMs);
      expect(at[0]! - T0).toBeLessThanOrEqual(DEFAULT_JOB_RULES.silentAfterMs + 1000);
      expect(stretches(ticks)).toEqual(['moving', 'silent']);
    },
  );

  test('agent frozen: the node goes from moving straight to agent unreachable, its own critical; never silent, never a straggler', () => {
    const { changes, ticks, at } = simulate('agent frozen');
    expect(changes.map((c) => [c.kind, c.alert.rule, c.alert.run, c.alert.severity])).toEqual([
      ['raised', 'job-agent-unreachable', 'b:1//grpo', 'critical'],
    ]);
    // Raised unreachableAfterMs after its endpoint stopped answering (at +10 s), not after the silent window.
    expect(at[0]! - (T0 + 10_000)).toBeGreaterThanOrEqual(DEFAULT_JOB_RULES.unreachableAfterMs);
    expect(at[0]! - (T0 + 10_000)).toBeLessThanOrEqual(DEFAULT_JOB_RULES.unreachableAfterMs + 1000);
    expect(stretches(ticks)).toEqual(['moving', 'unreachable']);
    expect(changes[0]!.alert.message).toContain('whether it still writes is unknown');
  });

  test('a straggler that then stops stays a straggler until the silent alert takes over, in one update, and says so', () => {
    // b writes a step every 2 s: a real straggler (it keeps advancing, at its own rhythm) until it stops at T0.
    const { changes, ticks, at } = simulate('writer frozen', 2000);
    expect(changes.map((c) => [c.kind, c.alert.rule])).toEqual([
      ['raised', 'job-step-skew'],
      ['raised', 'job-node-silent'],
      ['cleared', 'job-step-skew'],
    ]);
    // The handover: the silent alert raised and the straggler cleared at the same instant, never a healthy node between.
    expect(at[1]).toBe(at[2]);
    // First seen past the bound, then its next step makes it a straggler; from then on it always has an alert.
    expect(stretches(ticks)).toEqual(['moving', 'straggler', 'silent']);
    const from = ticks.findIndex((k) => k.state === 'straggler');
    expect(ticks.slice(from).every((k) => k.open.length > 0)).toBe(true);
    const cleared = changes[2]!.alert;
    expect(cleared.clearedBecause).toBe(
      'handed over to job-node-silent: node b has written nothing for 2m 01s',
    );
    expect(cleared.message).toMatch(/^Node b of job j is \d+ steps behind the lead/);
  });
});

describe('what is known of a stopped node: its agent unreachable, its trainer exited (#38)', () => {
  const three = (t: number, c: { last?: number; step?: number; trainer?: RunInfo['trainer'] } = {}) => {
    const runs = [
      run('a:1', 'grpo', { job: 'j', node: 'a', lastMs: t, step: 1510 }),
      run('b:1', 'grpo', { job: 'j', node: 'b', lastMs: t, step: 1510 }),
      run('c:1', 'grpo', { job: 'j', node: 'c', lastMs: c.last ?? t, step: c.step ?? 1510 }),
    ];
    if (c.trainer !== undefined) runs[2] = { ...runs[2]!, trainer: c.trainer };
    return runs;
  };
  /** Node c's endpoint away since `since` (null: connected); the others answer unless `allAway`. */
  const facts =
    (away: { since: number | null; allAway?: boolean }) =>
    (host: string | null): NodeFacts =>
      (host === 'c:1' || away.allAway) && away.since !== null
        ? { connected: false, awaySince: away.since, gpuUtilPct: null }
        : up;

  test('a node whose agent does not answer is "agent unreachable" at once, raised as its own critical after unreachableAfterMs; never silent, never a straggler', () => {
    const now = { t: T0 };
    const away: { since: number | null } = { since: null };
    const { m, changes, update } = monitor(now, facts(away));
    update(three(now.t));
    // c's agent freezes: its link drops 20 s later; the others keep writing.
    const frozeAt = now.t;
    now.t += 20_000;
    away.since = now.t;
    update(three(now.t, { last: frozeAt, step: 1400 }));
    expect(m.jobs()[0]!.nodes.map((n) => [n.node, n.state, n.connected])).toEqual([
      ['a', 'moving', true],
      ['b', 'moving', true],
      ['c', 'unreachable', false],
    ]);
    expect(changes).toEqual([]);
    now.t += DEFAULT_JOB_RULES.unreachableAfterMs;
    update(three(now.t, { last: frozeAt, step: 1400 }));
    expect(changes.map((c) => [c.kind, c.alert.rule, c.alert.severity, c.alert.run])).toEqual([
      ['raised', 'job-agent-unreachable', 'critical', 'c:1//grpo'],
    ]);
    const alert = changes[0]!.alert;
    expect(alert.message).toBe(
      'Node c of job j: its agent (c:1) has not answered for 30s; whether it still writes is unknown ' +
        '(its newest write as last seen 50s ago at step 1400).',
    );
    expect(alert.advice).toMatch(/Check the rlwatch agent/);
    expect(alert.advice).not.toMatch(/py-spy/);
    // Past the silence window with its writes unknown: still unreachable, never called silent.
    now.t += 5 * DEFAULT_JOB_RULES.silentAfterMs;
    update(three(now.t, { last: frozeAt, step: 1400 }));
    expect(m.activeAlerts().map((a) => a.rule)).toEqual(['job-agent-unreachable']);
    expect(m.jobs()[0]!.nodes[2]!.state).toBe('unreachable');
    // It answers again and writes: cleared, moving.
    away.since = null;
    update(three(now.t));
    expect(m.activeAlerts()).toEqual([]);
    expect(changes.at(-1)).toMatchObject({ kind: 'cleared', alert: { rule: 'job-agent-unreachable' } });
    expect(m.jobs()[0]!.nodes[2]!.state).toBe('moving');
  });

  test('no agent answering (the head cut off, the job torn down) raises nothing; a finished node away is finished', () => {
    const now = { t: T0 };
    const away = { since: T0, allAway: true };
    const { m, changes, update } = monitor(now, facts(away));
    now.t += 10 * DEFAULT_JOB_RULES.unreachableAfterMs;
    update(three(T0));
    expect(changes).toEqual([]);
    expect(m.jobs()[0]!.nodes.map((n) => n.state)).toEqual(['unreachable', 'unreachable', 'unreachable']);
    const { m: m2, changes: c2, update: u2 } = monitor(now, facts({ since: T0 }));
    u2([
      ...three(now.t).slice(0, 2),
      run('c:1', 'grpo', { job: 'j', node: 'c', lastMs: T0, ended: 'finished' }),
    ]);
    expect(c2).toEqual([]);
    expect(m2.jobs()[0]!.nodes[2]!.state).toBe('finished');
  });

  test('a silent node whose agent then goes away keeps its silence (no clear because its source vanished), beside its agent unreachable', () => {
    const now = { t: T0 };
    const away: { since: number | null } = { since: null };
    const { m, update } = monitor(now, facts(away));
    now.t += DEFAULT_JOB_RULES.silentAfterMs + 10_000;
    update(three(now.t, { last: T0 }));
    expect(m.activeAlerts().map((a) => a.rule)).toEqual(['job-node-silent']);
    away.since = now.t;
    now.t += DEFAULT_JOB_RULES.unreachableAfterMs;
    update(three(now.t, { last: T0 }));
    expect(m.activeAlerts().map((a) => a.rule)).toEqual(['job-node-silent', 'job-agent-unreachable']);
    expect(m.jobs()[0]!.nodes[2]!.state).toBe('unreachable');
  });

  test('a node whose agent saw its trainer exit is "exited", raised as job-node-exited with no py-spy advice; a live trainer keeps the hang advice', () => {
    const now = { t: T0 };
    const { m, changes, update } = monitor(now);
    const gone: RunInfo['trainer'] = {
      state: 'exited',
      processes: [{ pid: 4242, evidence: 'open-files', onGpu: true }],
      exitedAt: T0 + 1000,
    };
    now.t += DEFAULT_JOB_RULES.silentAfterMs + 10_000;
    update(three(now.t, { last: T0, step: 1200, trainer: gone }));
    expect(changes.map((c) => [c.kind, c.alert.rule, c.alert.severity])).toEqual([
      ['raised', 'job-node-exited', 'critical'],
    ]);
    const alert = changes[0]!.alert;
    expect(alert.message).toBe(
      'Node c of job j: its trainer process exited (its agent saw it end) and it has written nothing for 2m 10s ' +
        'while 2 other nodes kept writing; it is at step 1200, the others at 1510.',
    );
    expect(alert.advice).not.toMatch(/py-spy/);
    expect(alert.advice).toMatch(/traceback/);
    expect(m.jobs()[0]!.nodes[2]!.state).toBe('exited');

    const alive: RunInfo['trainer'] = { state: 'alive', processes: gone.processes, exitedAt: null };
    const other = monitor({ t: now.t });
    other.update(three(now.t, { last: T0, step: 1200, trainer: alive }));
    expect(other.changes.map((c) => [c.alert.rule, /py-spy/.test(c.alert.advice ?? '')])).toEqual([
      ['job-node-silent', true],
    ]);
  });
});
