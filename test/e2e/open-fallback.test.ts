// `rlwatch open` (what `npm start` runs) where no window can open: one line saying why, then the served demo.

import { afterEach, expect, test } from 'vitest';
import { runCli, type CliProcess } from './cli-process';

let proc: CliProcess | null = null;
afterEach(async () => {
  await proc?.stop();
  proc = null;
});

test('without a display, open explains why and serves the live demo on 127.0.0.1', async () => {
  const env = { ...process.env };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  // Its own in-memory database, not the per-user one.
  env.RLWATCH_STORE = 'memory';
  proc = runCli(['open'], env);
  const reason = await proc.waitFor(/^rlwatch: (no display here[^\n]*)$/m);
  expect(reason[1]).toMatch(/serving the same UI in your browser instead/);
  const url = (await proc.waitFor(/(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/))[1]!;
  const page = await fetch(url);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('<title>rlwatch</title>');
});

test('open on a missing folder exits 2 with a one-line reason', async () => {
  proc = runCli(['open', '/nonexistent/rlwatch-folder']);
  const code = await new Promise<number | null>((res) => proc!.child.once('exit', res));
  expect(code).toBe(2);
  expect(proc.output().trim()).toMatch(/^rlwatch: \/nonexistent\/rlwatch-folder does not exist$/);
});
