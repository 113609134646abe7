// End to end: one job across three nodes. Three `rlwatch agent --job grpo-3n --node node-a|b|c`, each following a
// folder its own writer process fills, and one serve following all three with a short silent-after: one job entry with
// its three nodes (over the API and in Chromium); node-c's writer frozen (SIGSTOP, its agent answering) is silent with
// a critical job-node-silent alert naming it while the others move; SIGCONT brings it back to moving and clears it;
// node-c's agent killed is "agent unreachable" at once (its writing unknown), never silent, with its own critical.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AlertInfo } from '../../src/shared/domain';
import type { JobInfo, JobNodeState } from '../../src/shared/job-types';
import { launchChromium } from './browser';
import type { CliProcess } from './cli-process';
import { openPage, servedUrl, serveIsolated } from './demo-server';
import { apiOf, type SocketApi } from './socket-api';
import { saveScreenshot } from './screenshots';

const JOB = 'grpo-3n';
const NODES = ['node-a', 'node-b', 'node-c'] as const;
/** The head's silent-after: seconds, so a frozen node is silent within the test (the default is 120 s). */
const SILENT_AFTER_MS = 6000;
/** Steps a second. */
const RATE = 8;

/**
 * A node's trainer: appends a row of `grpo/training_metrics.csv` (step, timestamp, reward, kl, loss) per step, its
 * step read off a clock shared by the three nodes, as the ranks of a synchronous job share the global step. A
 * stopped writer, continued, writes the job's step at once. (`rlwatch demo` counts its own ticks instead: a demo
 * paused for P s stays RATE × P steps behind for good, a straggler, never back to moving.)
 */
const WRITER = `
const fs = require('node:fs');
const path = require('node:path');
const [dir, t0, rate, phase] = process.argv.slice(1).map((a, i) => (i === 0 ? a : Number(a)));
const run = path.join(dir, 'grpo');
fs.mkdirSync(run, { recursive: true });
const csv = path.join(run, 'training_metrics.csv');
fs.writeFileSync(csv, 'step,timestamp,reward,kl,loss\\n');
let last = -1;
setInterval(() => {
  const now = Date.now();
  const step = Math.floor(((now - t0) / 1000) * rate);
  if (step <= last) return;
  last = step;
  const reward = 1 - Math.exp(-step / 150) + 0.08 * Math.sin(step * 0.9 + phase);
  const kl = 0.006 + 0.002 * Math.sin(step * 0.31 + phase);
  const loss = 1.2 * Math.exp(-step / 200) + 0.05 * Math.cos(step * 0.7 + phase);
  fs.appendFileSync(csv, [step, (now / 1000).toFixed(3), reward, kl, loss].join(',') + '\\n');
}, 1000 / rate / 2);
process.stdout.write('writing\\n');
`;

/** Starts a node's writer into `dir`; resolves once it wrote its header. */
async function startWriter(dir: string, t0: number, phase: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', WRITER, dir, String(t0), String(RATE), String(phase)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((res, rej) => {
    child.stdout!.once('data', res);
    child.once('exit', (code) => rej(new Error(`the writer exited (${code})`)));
  });
  return child;
}

interface Node {
  name: string;
  dir: string;
  writer: ChildProcess;
  agent: CliProcess;
  storeDir: string;
  /** The URL the agent printed (with its token). */
  url: string;
  host: string;
}

describe('one job across three nodes, one of them frozen', () => {
  const nodes: Node[] = [];
  let headDir: string;
  let head: CliProcess;
  let headStore: string;
  let headUrl: string;
  let api: SocketApi;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let silentAlert: AlertInfo;
  const frozen = (): Node => nodes[2]!;
  const runOf = (n: Node): string => `${n.host}//grpo`;

  /** SIGSTOP / SIGCONT node-c's writer (a hung rank; its agent answers, so the head knows it stopped writing). */
  const signalFrozen = (signal: 'SIGSTOP' | 'SIGCONT'): void => {
    frozen().writer.kill(signal);
  };

  beforeAll(async () => {
    const t0 = Date.now();
    for (const [i, name] of NODES.entries()) {
      const dir = mkdtempSync(join(tmpdir(), `rlwatch-e2e-job-${name}-`));
      const writer = await startWriter(dir, t0, i);
      const { serve: agent, storeDir } = serveIsolated(dir, {
        command: 'agent',
        args: ['--job', JOB, '--node', name],
      });
      const url = await servedUrl(agent);
      nodes.push({ name, dir, writer, agent, storeDir, url, host: new URL(url).host });
    }
    // The head has no runs of its own: an empty folder, the three agents as remotes.
    headDir = mkdtempSync(join(tmpdir(), 'rlwatch-e2e-job-head-'));
    const started = serveIsolated(headDir, {
      args: nodes.flatMap((n) => ['--remote', n.url]),
      env: { RLWATCH_JOB_SILENT_AFTER_MS: String(SILENT_AFTER_MS) },
    });
    ({ serve: head, storeDir: headStore } = started);
    headUrl = await servedUrl(head);
    for (const n of nodes) await head.waitFor(new RegExp(`following http://${n.host}/`));
    api = await apiOf(headUrl);
    browser = await launchChromium();
  });

  afterAll(async () => {
    // A frozen process would never exit on SIGINT.
    if (nodes.length === 3) signalFrozen('SIGCONT');
    api?.close();
    await browser?.close();
    await head?.stop();
    for (const n of nodes) {
      await n.agent.stop();
      if (n.writer.exitCode === null) {
        const exited = new Promise((res) => n.writer.once('exit', res));
        n.writer.kill('SIGINT');
        await exited;
      }
      rmSync(n.dir, { recursive: true, force: true });
      rmSync(n.storeDir, { recursive: true, force: true });
    }
    for (const d of [headDir, headStore]) if (d) rmSync(d, { recursive: true, force: true });
  });

  const jobs = async (): Promise<JobInfo[]> => (await api.ask<JobInfo[]>('jobs.list', {})).value;
  const alerts = async (): Promise<AlertInfo[]> => (await api.ask<AlertInfo[]>('alerts.list', {})).value;
  /** Each node's name and state, in node order. */
  const states = async (): Promise<[string, JobNodeState][]> =>
    (await jobs()).flatMap((j) => j.nodes.map((n): [string, JobNodeState] => [n.node, n.state]));
  const nodeRow = (name: string) =>
    page.locator(`.job-item[data-job="${JOB}"] .job-node[data-node="${name}"]`);

  test('a bad RLWATCH_JOB_SILENT_AFTER_MS is a usage error, not the default in silence', async () => {
    const bad = serveIsolated(headDir, { env: { RLWATCH_JOB_SILENT_AFTER_MS: '5s' } });
    await bad.serve.waitFor(/RLWATCH_JOB_SILENT_AFTER_MS must be a whole number of milliseconds/);
    await expect.poll(() => bad.serve.child.exitCode).toBe(2);
    rmSync(bad.storeDir, { recursive: true, force: true });
  });

  test('over the API: one named job, its three nodes from three endpoints, all moving', async () => {
    await expect.poll(states, { timeout: 30_000 }).toEqual(NODES.map((n) => [n, 'moving']));
    const [job] = await jobs();
    expect(job).toMatchObject({ name: JOB, grouping: 'named' });
    expect(job!.nodes.map((n) => [n.host, n.run, n.connected])).toEqual(
      nodes.map((n) => [n.host, runOf(n), true]),
    );
    expect(job!.stepMin).toBeGreaterThan(0);
    expect(job!.stepMax).toBeGreaterThanOrEqual(job!.stepMin!);
  });

  test("node-c's writer frozen: silent, with a critical job-node-silent alert naming it; the others move", async () => {
    // Some steps first, so the frozen node stops mid-run.
    await expect
      .poll(async () => (await jobs())[0]?.stepMin ?? 0, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(40);
    signalFrozen('SIGSTOP');
    await expect.poll(states, { timeout: 40_000, interval: 250 }).toEqual([
      ['node-a', 'moving'],
      ['node-b', 'moving'],
      ['node-c', 'silent'],
    ]);
    const raised = (await alerts()).filter((a) => a.active && a.rule === 'job-node-silent');
    expect(raised).toHaveLength(1);
    silentAlert = raised[0]!;
    expect(silentAlert).toMatchObject({ severity: 'critical', run: runOf(frozen()) });
    expect(silentAlert.message).toMatch(
      /^Node node-c of job grpo-3n has written nothing for (\d+m )?\d+s while 2 other nodes kept writing/,
    );
    const [job] = await jobs();
    expect(job!.worstAlert).toBe('critical');
    expect(job!.nodes[2]!.worstAlert).toBe('critical');
    // The other nodes' steps still advance while node-c's stays where it froze.
    const step = (j: JobInfo, i: number): number => j.nodes[i]!.step!;
    await expect
      .poll(async () => step((await jobs())[0]!, 0), { timeout: 10_000 })
      .toBeGreaterThan(step(job!, 0));
    expect(step((await jobs())[0]!, 2)).toBe(step(job!, 2));

    // In Chromium: one job entry above the runs, expanded to its nodes, node-c marked silent in words.
    ({ page, errors } = await openPage(browser, headUrl));
    const entry = page.locator(`.job-item[data-job="${JOB}"]`);
    await entry.waitFor();
    expect(await page.locator('.job-item').count()).toBe(1);
    await expect.poll(() => entry.locator('.job-summary').innerText()).toMatch(/^3 nodes · steps \d+–\d+$/);
    await expect.poll(() => entry.locator('.job-problems').innerText()).toBe('1 silent');
    await expect
      .poll(() => entry.locator('.job-select .dot').getAttribute('aria-label'))
      .toBe('critical alert');
    const toggle = page.getByRole('button', { name: `show the nodes of job ${JOB}` });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    await expect.poll(() => entry.locator('.job-toggle').getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => entry.locator('.job-node').count()).toBe(3);
    await expect.poll(() => nodeRow('node-c').getAttribute('data-state')).toBe('silent');
    expect(await nodeRow('node-c').locator('.node-state').innerText()).toBe('silent');
    for (const n of ['node-a', 'node-b']) {
      expect(await nodeRow(n).getAttribute('data-state')).toBe('moving');
      expect(await nodeRow(n).locator('.node-state').innerText()).toBe('moving');
    }
    // Its endpoint may be up still (GPU —: no GPU here) or already dropped for a missed ping.
    await expect
      .poll(() => nodeRow('node-c').locator('.node-where').innerText())
      .toMatch(/ · (GPU —|not connected)$/);
    expect(await nodeRow('node-c').locator('.node-where').innerText()).toContain(frozen().host);
    await expect
      .poll(() => nodeRow('node-c').locator('.node-progress').innerText())
      .toMatch(/^step \d+ · last write \d+ s ago$/);
    // The node runs stay in the list as before, under their hosts.
    for (const n of nodes) await page.locator(`.run-item[data-run="${runOf(n)}"]`).waitFor();

    // Clicking the job charts its three nodes' runs together; clicking a node selects its run alone.
    await entry.locator('.job-select').click();
    await expect.poll(() => entry.getAttribute('class')).toMatch(/\bselected\b/);
    await expect.poll(() => page.locator('.run-item.selected, .run-item.overlaid').count()).toBe(3);
    expect(await entry.locator('.job-select').getAttribute('aria-current')).toBe('true');

    // The alert list names node-c.
    const alertRow = page.locator(`.alert[data-rule="job-node-silent"][data-alert-id="${silentAlert.id}"]`);
    await alertRow.waitFor();
    expect(await alertRow.getAttribute('data-severity')).toBe('critical');
    expect(await alertRow.locator('.alert-message').innerText()).toContain('Node node-c of job grpo-3n');

    // The picture shows drawn charts: node-c's series requests wait out the remote request timeout (15 s) first.
    await expect
      .poll(() => page.locator('figure.chart .chart-overlay-note').count(), { timeout: 40_000 })
      .toBe(0);
    await saveScreenshot(page, 'job-nodes.png', { docs: 'screenshots/job-nodes.png' });

    await nodeRow('node-b').locator('.job-node-select').click();
    await expect
      .poll(() => page.locator('.run-item.selected').getAttribute('data-run'))
      .toBe(runOf(nodes[1]!));
    await expect.poll(() => page.locator('.run-item.overlaid').count()).toBe(0);
    await expect
      .poll(() => nodeRow('node-b').locator('.job-node-select').getAttribute('aria-current'))
      .toBe('true');
    await expect.poll(() => entry.getAttribute('class')).not.toMatch(/\bselected\b/);
    expect(errors).toEqual([]);
  });

  test('node-c resumed: moving again, its alert cleared, in the API and the window', async () => {
    signalFrozen('SIGCONT');
    await expect.poll(states, { timeout: 60_000, interval: 250 }).toEqual(NODES.map((n) => [n, 'moving']));
    await expect
      .poll(async () => (await alerts()).find((a) => a.id === silentAlert.id)?.active, { timeout: 10_000 })
      .toBe(false);
    expect((await alerts()).filter((a) => a.active && a.rule === 'job-node-silent')).toEqual([]);
    // It says what cleared it (not its firing text again).
    const cleared = (await alerts()).find((a) => a.id === silentAlert.id)!;
    expect(cleared.clearedBecause).toMatch(/^node node-c is writing again \(step \d+\)$/);
    // Never a straggler before (or after) it was silent.
    expect((await alerts()).filter((a) => a.rule === 'job-step-skew')).toEqual([]);
    await expect.poll(() => nodeRow('node-c').getAttribute('data-state'), { timeout: 20_000 }).toBe('moving');
    await expect.poll(() => page.locator(`.alert[data-alert-id="${silentAlert.id}"]`).count()).toBe(0);
    await expect.poll(() => page.locator(`.job-item[data-job="${JOB}"] .job-problems`).count()).toBe(0);
    await expect
      .poll(() => nodeRow('node-c').locator('.node-where').innerText())
      .toBe(`${frozen().host} · GPU —`);
    // The window's recently cleared list says what cleared it.
    await page.getByRole('button', { name: /^Show recently cleared/ }).click();
    await expect
      .poll(() =>
        page.locator(`.cleared-alert[data-alert-id="${silentAlert.id}"] .alert-message`).innerText(),
      )
      .toBe(`Cleared: ${cleared.clearedBecause}`);
    expect(errors).toEqual([]);
  });

  test("node-c's agent killed: 'agent unreachable' at once (its writing unknown), never silent; its own critical", async () => {
    frozen().agent.child.kill('SIGKILL');
    await expect.poll(states, { timeout: 20_000, interval: 250 }).toEqual([
      ['node-a', 'moving'],
      ['node-b', 'moving'],
      ['node-c', 'unreachable'],
    ]);
    await expect
      .poll(() => nodeRow('node-c').getAttribute('data-state'), { timeout: 20_000 })
      .toBe('unreachable');
    expect(await nodeRow('node-c').locator('.node-state').innerText()).toBe('agent unreachable');
    await expect
      .poll(() => page.locator(`.job-item[data-job="${JOB}"] .job-problems`).innerText())
      .toBe('1 agent unreachable');
    // Past the silent-after (6 s) and the unreachable-after (30 s): its own critical, never job-node-silent.
    await expect
      .poll(
        async () =>
          (await alerts())
            .filter((a) => a.active && a.rule === 'job-agent-unreachable')
            .map((a) => [a.severity, a.run]),
        { timeout: 60_000, interval: 500 },
      )
      .toEqual([['critical', runOf(frozen())]]);
    expect((await alerts()).filter((a) => a.active && a.rule === 'job-node-silent')).toEqual([]);
    expect(errors).toEqual([]);
  }, 120_000);
});
