// End to end: incident snapshots — `rlwatch export --incident` on the demo (the id `watch --json` prints) and on a
// corpus run, an unknown id, and the alerts panel's "Snapshot" button in Chromium (serve mode, the demo's KL alert).

import { loadImage } from '@napi-rs/canvas';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser';
import { runCli, type CliProcess } from './cli-process';
import { openPage, startDemoServer, type DemoServer } from './demo-server';
import { tempDirs } from '../helpers/temp-dirs';

const FIX = join(import.meta.dirname, '..', 'fixtures');
const tmp = tempDirs();

/** The exit status of a CLI run that ends by itself. */
function exitStatus(p: CliProcess): Promise<number | null> {
  return p.child.exitCode !== null
    ? Promise.resolve(p.child.exitCode)
    : new Promise((res) => p.child.once('exit', (code) => res(code)));
}

/** The snapshot folder holds the report (naming the id), the window CSV and a PNG that decodes. */
async function expectSnapshot(folder: string, id: string): Promise<void> {
  expect(readdirSync(folder).sort()).toEqual(['charts.png', 'report.md', 'window.csv']);
  expect(readFileSync(join(folder, 'report.md'), 'utf8')).toContain(`\`${id}\``);
  expect(readFileSync(join(folder, 'window.csv'), 'utf8')).toMatch(
    /^run,tag,step,wall_time,value,session\n.+/,
  );
  const png = await loadImage(readFileSync(join(folder, 'charts.png')));
  expect([png.width, png.height]).toEqual([1600, 900]);
}

describe('rlwatch export --incident', () => {
  let demo: string;
  beforeAll(async () => {
    demo = join(tmp('rlwatch-e2e-incident-'), 'demo');
    expect(await exitStatus(runCli(['demo', demo, '--steps', '400', '--rate', '1000']))).toBe(0);
  });

  test('the KL alert id that watch --json prints gives its snapshot', async () => {
    const watch = runCli(['watch', demo, '--json', '--no-system']);
    const line = await watch.waitFor(/^(\{"t":.*"type":"alert".*"rule":"kl-above-target".*)$/m);
    await watch.stop();
    const id = (JSON.parse(line[1]!) as { id: string }).id;
    // One incident: run, rule, quantity (KL, whatever its tag) and the step it began at.
    expect(id).toMatch(/^\["ppo_demo","kl-above-target","kl",\d+\]$/);
    const out = tmp('rlwatch-e2e-incident-out-');
    const p = runCli(['export', demo, '--incident', id, '--out', out, '--json']);
    expect(await exitStatus(p)).toBe(0);
    const snap = JSON.parse(p.output().trim().split('\n').pop()!) as { folder: string; failed: unknown[] };
    expect(snap.failed).toEqual([]);
    expect(snap.folder).toMatch(/incident-kl-above-target-ppo_demo-step\d+$/);
    await expectSnapshot(snap.folder, id);
  });

  test('a corpus run with a real alert (SB3 entropy collapse)', async () => {
    const run = join(FIX, 'tfevents', '0pk0__rl4avs');
    const list = runCli(['export', run, '--incident', 'list', '--json']);
    expect(await exitStatus(list)).toBe(0);
    const ids = list
      .output()
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    // The opened folder's own run is named by the folder.
    const id = '["0pk0__rl4avs","entropy-collapse","entropy",18000]';
    expect(ids).toContain(id);
    const out = tmp('rlwatch-e2e-incident-out-');
    const p = runCli(['export', run, '--incident', id, '--out', out]);
    expect(await exitStatus(p)).toBe(0);
    const [folder] = readdirSync(out);
    expect(folder).toMatch(/^incident-entropy-collapse-0pk0__rl4avs-step\d+$/);
    await expectSnapshot(join(out, folder!), id);
  });

  test('an unknown id exits 2 naming the run’s alert ids; nothing is written', async () => {
    const out = tmp('rlwatch-e2e-incident-out-');
    const p = runCli(['export', demo, '--incident', '["ppo_demo","kl-above-target","nope",1]', '--out', out]);
    expect(await exitStatus(p)).toBe(2);
    expect(p.output()).toMatch(
      /rlwatch: no alert \["ppo_demo","kl-above-target","nope",1\] in this folder; its \d+ alert id\(s\)/,
    );
    expect(p.output()).toMatch(/\["ppo_demo","kl-above-target","kl",\d+\]/);
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('the alerts panel’s Snapshot button (serve mode)', () => {
  let server: DemoServer;
  let browser: Browser;

  beforeAll(async () => {
    // 20 steps/s: the KL alert is raised within ~10 s and stays active for ~13 s more.
    server = await startDemoServer(20);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('Snapshot on the KL alert → a folder dialog → report.md, window.csv and the figure', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const kl = page.locator('.alert-list:not(.cleared) .alert[data-rule="kl-above-target"]').first();
    await kl.waitFor({ timeout: 90_000 });
    const id = (await kl.getAttribute('data-alert-id'))!;
    await kl.getByRole('button', { name: /^Snapshot kl-above-target/ }).click();
    const out = tmp('rlwatch-e2e-incident-ui-');
    const dialog = page.locator('dialog.snapshot-dialog');
    await dialog.getByLabel(/Folder on the machine running rlwatch/).fill(out);
    await dialog.getByRole('button', { name: 'Write snapshot' }).click();
    const line = page.locator('.snapshot-line:not([data-snapshot-state="writing"])');
    await line.waitFor({ timeout: 30_000 });
    expect(`${await line.getAttribute('data-snapshot-state')}: ${await line.innerText()}`).toMatch(
      /^written: /,
    );
    const report = (await line.getAttribute('data-snapshot-report'))!;
    expect(await line.innerText()).toBe(`Snapshot written to ${report}`);
    expect(report.startsWith(out)).toBe(true);
    expect(existsSync(report)).toBe(true);
    await expectSnapshot(join(report, '..'), id);
    await expect.poll(() => dialog.count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
