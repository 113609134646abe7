// Jobs through real endpoints: three nodes served with --job identities, a head app and `watch --remote` following
// them; one node's writer stops (a hung rank) while the others move, then its endpoint goes away (agent unreachable,
// never called silent: its writing is unknown).

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AppCore } from '../../../src/core/app/app-core';
import { createHandlers } from '../../../src/core/app/handlers';
import { dispatch } from '../../../src/core/api/dispatch';
import { startServer, type RunningServer } from '../../../src/core/server/serve';
import { openStore } from '../../../src/core/store';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import { WatchRemotes } from '../../../src/core/watch/watch-remotes';
import type { WatchLine } from '../../../src/core/watch/watch-lines';
import type { RequestChannel } from '../../../src/shared/channels';
import type { RequestArgs, RequestResults } from '../../../src/shared/contract';
import type { JobInfo } from '../../../src/shared/job-types';
import type { SystemSnapshot, TrainingProcess } from '../../../src/shared/system-types';
import { waitFor } from '../../helpers/wait-for';

const TOKEN = 'job-test-token-0123456789';
const FAST = { backoff: { baseMs: 50, maxMs: 200 }, limits: { requestTimeoutMs: 2000 } };
/** Short enough for a test, long against the 100 ms writes: only a stopped writer is silent. A stopped node falls
 * skewMinSteps behind (2 s at 10 steps a second) before it is silent: it must never be called a straggler first.
 * The others still advance while their newest write, as the head sees it, is within 2 s: remote run lists reach the
 * head at most once a second, later on a loaded machine (at 1 s a busy CI saw no node advancing for a tick, and
 * node-c read quiet on its way to silent). */
const RULES = { silentAfterMs: 4000, advanceMinMs: 2000, skewMinSteps: 20, unreachableAfterMs: 1000 };

interface Node {
  name: string;
  app: AppCore;
  server: RunningServer;
  writer: EventFileWriter;
  step: number;
  writing: boolean;
  url: string;
}

let tmp: string;
const nodes: Node[] = [];
let timer: NodeJS.Timeout;

async function startNode(name: string): Promise<Node> {
  const root = join(tmp, name);
  mkdirSync(join(root, 'grpo'), { recursive: true });
  const writer = new EventFileWriter(join(root, 'grpo'));
  const app = new AppCore({
    host: { mode: 'serve', version: 't', allowOpenFolder: false },
    store: openStore({ path: null }),
    identity: { job: 'grpo-3n', node: name },
  });
  const node: Node = { name, app, writer, step: 0, writing: true, url: '', server: null as never };
  write(node);
  await app.open(root);
  node.server = await startServer({
    bus: app.bus,
    handlers: createHandlers(app),
    rendererDir: tmp,
    token: TOKEN,
    port: 0,
    log: () => {},
  });
  node.url = `http://127.0.0.1:${node.server.port}/?token=${TOKEN}`;
  return node;
}

function write(n: Node): void {
  n.step += 1;
  n.writer.scalars(n.step, [{ tag: 'reward', value: Math.sin(n.step) }], 'simple', Date.now() / 1000);
  n.writer.flush();
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rlwatch-jobs-'));
  for (const name of ['node-a', 'node-b', 'node-c']) nodes.push(await startNode(name));
  timer = setInterval(() => {
    for (const n of nodes) if (n.writing) write(n);
  }, 100);
});

afterAll(async () => {
  clearInterval(timer);
  for (const n of nodes) {
    n.writer.close();
    await n.server.close().catch(() => {});
    await n.app.dispose();
  }
  rmSync(tmp, { recursive: true, force: true });
});

const byNode = (j: JobInfo | undefined): Record<string, string> =>
  Object.fromEntries((j?.nodes ?? []).map((n) => [n.node, n.state]));

describe('one job across three endpoints', () => {
  test('the head shows one job of three nodes; a node whose writer stops is silent, with a critical naming it', async () => {
    const head = new AppCore({
      host: { mode: 'serve', version: 't', allowOpenFolder: false },
      store: openStore({ path: null }),
      remotes: nodes.map((n) => n.url),
      remoteTuning: FAST,
      jobRules: RULES,
      tickMs: 200,
    });
    const h = createHandlers(head);
    const pushed: JobInfo[][] = [];
    head.bus.on('jobs.changed', (j) => pushed.push(j));
    /** Node-c's state and its job alerts' raises/clears, in the order the window hears them. */
    const heard: string[] = [];
    head.bus.on('jobs.changed', (j) => heard.push(`state ${byNode(j[0])['node-c']}`));
    head.bus.on('alerts.changed', (c) => {
      if (c.kind !== 'updated' && c.alert.rule.startsWith('job-')) heard.push(`${c.kind} ${c.alert.rule}`);
    });
    /** A request through the contract's dispatch, its answer as the channel's result type (or the error thrown). */
    const ask = async <C extends RequestChannel>(c: C, args: RequestArgs[C]): Promise<RequestResults[C]> => {
      const r = await dispatch(h, c, args);
      if (!r.ok) throw new Error(r.error.message);
      return r.value as RequestResults[C];
    };
    const jobs = (): Promise<JobInfo[]> => ask('jobs.list', {});
    try {
      const states = (): string => Object.values(byNode(head.jobs.monitor.jobs()[0])).join();
      await waitFor(() => states() === 'moving,moving,moving', 'three moving nodes');
      const [job] = await jobs();
      expect(job!.name).toBe('grpo-3n');
      expect(job!.grouping).toBe('named');
      expect(job!.nodes.map((n) => [n.node, n.run, n.connected])).toEqual(
        nodes.map((n) => [n.name, `127.0.0.1:${n.server.port}//grpo`, true]),
      );
      expect(pushed.length).toBeGreaterThan(0);

      // node-c's trainer hangs: its endpoint stays up, its run stops growing.
      heard.length = 0;
      nodes[2]!.writing = false;
      await waitFor(() => states() === 'moving,moving,silent', 'node-c silent');
      // Silent first, never a straggler before, and never a healthy (quiet) moment between moving and silent.
      expect(heard.filter((h) => h.startsWith('raised') || h.startsWith('cleared'))).toEqual([
        'raised job-node-silent',
      ]);
      expect(heard.filter((h) => h.startsWith('state')).filter((h, i, all) => all[i - 1] !== h)).toEqual([
        'state moving',
        'state silent',
      ]);
      expect(byNode((await jobs())[0])).toEqual({
        'node-a': 'moving',
        'node-b': 'moving',
        'node-c': 'silent',
      });
      const silent = (await ask('alerts.list', {})).filter((a) => a.rule === 'job-node-silent');
      expect(silent.map((a) => [a.severity, a.run, a.active])).toEqual([
        ['critical', `127.0.0.1:${nodes[2]!.server.port}//grpo`, true],
      ]);
      expect(silent[0]!.message).toMatch(/^Node node-c of job grpo-3n has written nothing for /);
      // Asked about node-c's run, the job alert is there too (a remote run's own list plus the job's).
      const ofRun = await ask('alerts.list', { run: silent[0]!.run });
      expect(ofRun.some((a) => a.id === silent[0]!.id)).toBe(true);
      // It acknowledges like any alert, and /metrics' view of the app counts it as active.
      expect((await ask('alerts.ack', { id: silent[0]!.id })).acknowledged).toBe(true);
      expect(head.activeAlerts().some((a) => a.id === silent[0]!.id)).toBe(true);

      // It writes again, from the others' step (not left behind as a straggler): moving, the alert cleared.
      nodes[2]!.step = nodes[0]!.step;
      nodes[2]!.writing = true;
      await waitFor(() => states() === 'moving,moving,moving', 'node-c moving again');
      await waitFor(
        () => !head.activeAlerts().some((a) => a.rule === 'job-node-silent'),
        'the alert cleared',
      );
      // The cleared alert says what cleared it.
      const was = (await ask('alerts.list', {})).find((a) => a.id === silent[0]!.id)!;
      expect(was.clearedBecause).toMatch(/^node node-c is writing again \(step \d+\)$/);
    } finally {
      nodes[2]!.writing = true; // the next test needs all three writing, whatever happened here
      await head.dispose();
    }
  }, 60_000);

  test('watch --remote prints the job as lines: its nodes, and an endpoint going away as its agent unreachable with its own critical, never silent', async () => {
    const lines: WatchLine[] = [];
    const watch = new WatchRemotes({
      urls: nodes.map((n) => n.url),
      emit: (l) => lines.push(l),
      tickMs: 200,
      jobRules: RULES,
      tuning: FAST,
    });
    const jobLines = (): Extract<WatchLine, { type: 'job' }>[] =>
      lines.filter((l): l is Extract<WatchLine, { type: 'job' }> => l.type === 'job');
    const lastStates = (): string =>
      (jobLines().at(-1)?.nodes ?? []).map((n) => `${n.node}:${n.state}`).join(' ');
    try {
      await waitFor(() => lastStates() === 'node-a:moving node-b:moving node-c:moving', 'a job line', 20_000);
      expect(lines.filter((l) => l.type === 'endpoint' && l.state === 'connected')).toHaveLength(3);
      // Run lists reach the hub at most once a second: the runs' lines may follow the job's.
      await waitFor(() => lines.filter((l) => l.type === 'run').length === 3, 'three run lines');
      expect(lines.filter((l) => l.type === 'run').map((l) => (l as { state: string }).state)).toEqual([
        'discovered',
        'discovered',
        'discovered',
      ]);
      const before = jobLines().length;

      // node-b's endpoint goes away (its agent killed) while a and c keep writing.
      const b = nodes[1]!;
      await b.server.close();
      await waitFor(
        () => lastStates() === 'node-a:moving node-b:unreachable node-c:moving',
        'node-b unreachable',
        20_000,
      );
      const last = jobLines().at(-1)!;
      expect(last.nodes[1]!.connected).toBe(false);
      await waitFor(
        () => lines.some((l) => l.type === 'alert' && l.rule === 'job-agent-unreachable'),
        'its agent-unreachable alert',
        20_000,
      );
      // Never a straggler, never silent, and never quiet (healthy-looking) in between.
      expect(lines.filter((l) => l.type === 'alert' && l.rule === 'job-step-skew')).toEqual([]);
      const bStates = jobLines()
        .slice(before)
        .map((l) => l.nodes[1]!.state)
        .filter((st, i, all) => all[i - 1] !== st);
      expect(bStates.filter((st) => st !== 'moving')).toEqual(['unreachable']);
      const alert = lines.find((l) => l.type === 'alert' && l.rule === 'job-agent-unreachable');
      expect(alert).toMatchObject({
        severity: 'critical',
        state: 'raised',
        run: `127.0.0.1:${b.server.port}//grpo`,
      });
      expect((alert as { message: string }).message).toMatch(
        /^Node node-b of job grpo-3n: its agent \(127\.0\.0\.1:\d+\) has not answered for .*; whether it still writes is unknown/,
      );
      // Past the silence window, its writes unknown: never called silent.
      await new Promise((r) => setTimeout(r, RULES.silentAfterMs + 500));
      expect(lines.filter((l) => l.type === 'alert' && l.rule === 'job-node-silent')).toEqual([]);
      expect(lastStates()).toBe('node-a:moving node-b:unreachable node-c:moving');
      expect(
        lines.some(
          (l) =>
            l.type === 'endpoint' && l.endpoint === `127.0.0.1:${b.server.port}` && l.state !== 'connected',
        ),
      ).toBe(true);
      // Steps moving on their own never make a job line: only shape changes do.
      const count = jobLines().length;
      await new Promise((r) => setTimeout(r, 600));
      expect(jobLines().length).toBe(count);
      expect(count - before).toBeLessThanOrEqual(3);
    } finally {
      watch.close();
    }
  }, 60_000);
  test("a killed trainer: the agent's knowledge of its process reaches the head with the run, and the node is exited, not a hang", async () => {
    const head = new AppCore({
      host: { mode: 'serve', version: 't', allowOpenFolder: false },
      store: openStore({ path: null }),
      remotes: nodes.map((n) => n.url),
      remoteTuning: FAST,
      jobRules: RULES,
      tickMs: 200,
    });
    const c = nodes[2]!;
    const cRun = `127.0.0.1:${c.server.port}//grpo`;
    /** A sample of node-c's machine as its sampler would give it (its writer runs in this process, never attributed). */
    const sample = (
      trainingProcesses: TrainingProcess[],
      exits: SystemSnapshot['processExits'] = [],
    ): SystemSnapshot => ({
      t: Date.now(),
      cpuPct: null,
      memPct: null,
      memUsedMiB: null,
      memTotalMiB: null,
      gpus: null,
      nvidia: { state: 'pending' },
      nvidiaChanged: false,
      appleGpu: null,
      trainingProcesses,
      processExits: exits,
    });
    const trainerOnHead = () => head.runs().find((r) => r.run === cRun)?.trainer ?? null;
    try {
      await waitFor(() => head.runs().some((r) => r.run === cRun), "node-c's run on the head");
      // node-c's agent finds its trainer: the head's run says so (pid from the agent, not the head's process table).
      const processes = [{ pid: 4242, evidence: 'open-files' as const, onGpu: true }];
      c.app.bus.emit('system.snapshot', sample([{ run: 'grpo', processes, cpuPct: 95, rssMiB: 2048 }]));
      await waitFor(() => trainerOnHead()?.state === 'alive', 'the trainer alive on the head');
      expect(trainerOnHead()!.processes).toEqual(processes);

      // Killed: the agent sees it gone; its writes stop.
      c.writing = false;
      const at = Date.now();
      c.app.bus.emit(
        'system.snapshot',
        sample([], [{ run: 'grpo', pids: [4242], at, lastSeenAt: at - 1000 }]),
      );
      await waitFor(() => trainerOnHead()?.state === 'exited', 'the trainer exited on the head');
      expect(trainerOnHead()).toEqual({ state: 'exited', processes, exitedAt: at });
      const state = () => head.jobs.monitor.jobs()[0]?.nodes.find((n) => n.node === 'node-c')?.state;
      await waitFor(() => state() === 'exited', 'node-c exited', 20_000);
      const alerts = head.jobs.monitor.activeAlerts().filter((a) => a.run === cRun);
      expect(alerts.map((a) => [a.rule, a.severity])).toEqual([['job-node-exited', 'critical']]);
      expect(alerts[0]!.message).toMatch(
        /^Node node-c of job grpo-3n: its trainer process exited \(its agent saw it end\)/,
      );
      expect(alerts[0]!.advice).not.toMatch(/py-spy/);
    } finally {
      c.writing = true;
      await head.dispose();
    }
  }, 60_000);
});
