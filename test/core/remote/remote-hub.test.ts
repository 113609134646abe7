// Remote endpoints through a real serve: one run list with keys per host, routing, pushes renamed, alerts on the
// tray and the notification limiter, data kept while an endpoint is away, reconnection, a refused token.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { AppCore } from '../../../src/core/app/app-core';
import { createHandlers } from '../../../src/core/app/handlers';
import { dispatch } from '../../../src/core/api/dispatch';
import { startServer, type RunningServer } from '../../../src/core/server/serve';
import { openStore } from '../../../src/core/store';
import { EventFileWriter } from '../../../src/core/tfevents/writer';
import type { PushEvent } from '../../../src/shared/channels';
import type { AlertInfo, RunInfo, SeriesWindow } from '../../../src/shared/domain';
import { waitFor } from '../../helpers/wait-for';

const TOKEN = 'remote-test-token-0123456789';
const FAST = { backoff: { baseMs: 50, maxMs: 200 }, limits: { requestTimeoutMs: 2000 } };

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'rlwatch-remote-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A folder with one run `run1` whose approx_kl sits at `kl` for `steps` steps. */
function folderWithRun(name: string, kl: number, steps = 12): string {
  const root = join(tmp, name);
  mkdirSync(join(root, 'run1'), { recursive: true });
  writeFileSync(join(root, 'run1', 'config.json'), JSON.stringify({ target_kl: 0.02 }));
  const w = new EventFileWriter(join(root, 'run1'), { wallTime: 1000 });
  for (let i = 0; i < steps; i++) w.scalars(i, [{ tag: 'approx_kl', value: kl }], 'simple', 1000 + i);
  w.close();
  return root;
}

const core = (remotes: string[] = []): AppCore =>
  new AppCore({
    host: { mode: 'serve', version: 't', allowOpenFolder: false },
    store: openStore({ path: null }),
    remotes,
    remoteTuning: FAST,
  });

/** An rlwatch serving `root` on `port` (0: any) with the fixed token: a remote endpoint. */
async function endpoint(root: string, port = 0): Promise<{ app: AppCore; server: RunningServer }> {
  const app = core();
  await app.open(root);
  const server = await startServer({
    bus: app.bus,
    handlers: createHandlers(app),
    rendererDir: tmp,
    token: TOKEN,
    port,
    log: () => {},
  });
  return { app, server };
}

function pushesOf(app: AppCore): { event: PushEvent; payload: unknown }[] {
  const got: { event: PushEvent; payload: unknown }[] = [];
  for (const event of ['runs.changed', 'series.appended', 'alerts.changed', 'endpoints.changed'] as const)
    app.bus.on(event, (payload) => got.push({ event, payload }));
  return got;
}

const names = (runs: RunInfo[]): string[] => runs.map((r) => r.run);

describe('a remote endpoint in the one run list', () => {
  test('runs keyed by host, requests routed, pushes renamed, alerts on the tray and notifications', async () => {
    const remoteRoot = folderWithRun('remote-a', 0.01);
    const remote = await endpoint(remoteRoot);
    cleanups.push(async () => {
      await remote.server.close();
      await remote.app.dispose();
    });
    const host = `127.0.0.1:${remote.server.port}`;
    const local = core([remote.server.url]);
    cleanups.push(() => local.dispose());
    await local.open(folderWithRun('local', 0.01));
    const pushes = pushesOf(local);
    const notified: string[] = [];
    local.onNotification((n) => notified.push(n.title));
    const h = createHandlers(local);

    // One list: the local run1 and the remote's run1 under its own key, never colliding.
    await waitFor(() => local.runs().length === 2, 'the remote run in the list');
    const runs = (await dispatch(h, 'runs.list', {})) as { ok: boolean; value: RunInfo[] };
    expect(runs.ok && names(runs.value)).toEqual(['run1', `${host}//run1`]);
    expect(runs.ok && runs.value.map((r) => r.host)).toEqual([undefined, host]);
    expect(await dispatch(h, 'endpoints.list', {})).toMatchObject({
      ok: true,
      value: [{ id: host, url: `http://${host}/`, state: 'connected', sessionOnly: true, runs: 1 }],
    });

    // Requests about its runs go to it; answers come back under our key.
    const win = await dispatch(h, 'series.get', { run: `${host}//run1`, tag: 'approx_kl', pixels: 100 });
    expect(win).toMatchObject({ ok: true, value: { run: `${host}//run1`, tag: 'approx_kl', length: 12 } });
    expect(await dispatch(h, 'runs.details', { run: `${host}//run1` })).toMatchObject({
      ok: true,
      value: { run: `${host}//run1`, config: { target_kl: 0.02 } },
    });
    expect(
      await dispatch(h, 'series.get', { run: `${host}//nope`, tag: 'approx_kl', pixels: 10 }),
    ).toMatchObject({
      ok: false,
      error: { code: 'not-found' },
    });

    // The remote run goes bad: its points and its alert are pushed to us renamed, then drive tray and notifications.
    const w = new EventFileWriter(join(remoteRoot, 'run1'), {
      wallTime: 2000,
      fileName: 'events.out.tfevents.2000.h.2',
    });
    for (let i = 12; i < 30; i++) w.scalars(i, [{ tag: 'approx_kl', value: 0.05 }], 'simple', 2000 + i);
    w.close();
    await waitFor(() => local.remotes.activeAlerts().length > 0, 'the remote KL alert');
    const appended = pushes
      .filter((p) => p.event === 'series.appended')
      .map((p) => (p.payload as { run: string }).run);
    expect(appended.length).toBeGreaterThan(0);
    expect(new Set(appended)).toEqual(new Set([`${host}//run1`]));
    const alert = local.remotes.activeAlerts()[0]!;
    expect(alert).toMatchObject({
      run: `${host}//run1`,
      rule: 'kl-above-target',
      id: expect.stringMatching(`^${host}//`),
    });
    // The local run is healthy: the tray's colour and items come from the remote alert.
    expect(local.trayModel().health).not.toBe('ok');
    expect(local.trayModel().runs.find((r) => r.name === 'run1')?.alerts).toEqual([]);
    expect(local.trayModel().runs.find((r) => r.name === `${host}//run1`)?.alerts.length).toBeGreaterThan(0);
    await waitFor(() => notified.length > 0, 'a notification for the remote alert');
    expect(notified[0]).toContain(`${host}//run1`);
    const listed = (await dispatch(h, 'alerts.list', { run: `${host}//run1` })) as {
      ok: boolean;
      value: AlertInfo[];
    };
    expect(listed.ok && listed.value.map((a) => a.id)).toContain(alert.id);

    // Acknowledging by our id acknowledges it on the endpoint.
    const acked = await dispatch(h, 'alerts.ack', { id: alert.id });
    expect(acked).toMatchObject({ ok: true, value: { id: alert.id, acknowledged: true } });
    expect(remote.app.alerts().find((a) => a.rule === 'kl-above-target')?.acknowledged).toBe(true);
    expect(await dispatch(h, 'alerts.snooze', { id: alert.id, minutes: 5 })).toMatchObject({
      ok: true,
      value: { snoozedUntil: expect.any(Number) },
    });
  });

  test('a lost endpoint keeps its runs and data, and reconnects on the same port', async () => {
    const root = folderWithRun('remote-b', 0.01);
    let remote = await endpoint(root);
    const port = remote.server.port;
    const host = `127.0.0.1:${port}`;
    cleanups.push(async () => {
      await remote.server.close();
      await remote.app.dispose();
    });
    const local = core([remote.server.url]);
    cleanups.push(() => local.dispose());
    await local.open(folderWithRun('local-b', 0.01));
    const h = createHandlers(local);
    await waitFor(() => local.runs().length === 2, 'the remote run');
    const before = await dispatch(h, 'series.get', { run: `${host}//run1`, tag: 'approx_kl', pixels: 100 });
    expect(before.ok).toBe(true);

    await remote.server.close();
    await remote.app.dispose();
    await waitFor(() => local.remotes.list()[0]!.state === 'disconnected', 'the endpoint shown disconnected');
    const lost = local.remotes.list()[0]!;
    expect(lost.error).not.toBe(null);
    expect(names(local.runs())).toEqual(['run1', `${host}//run1`]);
    const kept = await dispatch(h, 'series.get', { run: `${host}//run1`, tag: 'approx_kl', pixels: 100 });
    expect(kept).toMatchObject({ ok: true, value: { run: `${host}//run1`, length: 12 } });
    expect(Array.from((kept as { value: SeriesWindow }).value.values)).toEqual(
      Array.from((before as { value: SeriesWindow }).value.values),
    );
    expect(await dispatch(h, 'runs.details', { run: `${host}//run1` })).toMatchObject({ ok: false });

    // Still down for a few retries: "disconnected since" stays the moment it went down.
    await new Promise((r) => setTimeout(r, 400));
    expect(local.remotes.list()[0]!.since).toBe(lost.since);

    remote = await endpoint(root, port);
    await waitFor(() => local.remotes.list()[0]!.state === 'connected', 'reconnected');
    expect(await dispatch(h, 'runs.details', { run: `${host}//run1` })).toMatchObject({ ok: true });
  });

  test('every chart of a lost endpoint still draws: a bounded copy of each series, kept up to date, never loaded by a client', async () => {
    const root = folderWithRun('remote-kept', 0.01);
    mkdirSync(join(root, 'run2'));
    const w2 = new EventFileWriter(join(root, 'run2'), { wallTime: 1000 });
    for (let i = 0; i < 500; i++)
      w2.scalars(
        i,
        [
          { tag: 'loss', value: i === 250 ? 9 : 1 },
          { tag: 'reward', value: i },
        ],
        'simple',
        1000 + i,
      );
    w2.close();
    const remote = await endpoint(root);
    const host = `127.0.0.1:${remote.server.port}`;
    cleanups.push(async () => {
      await remote.server.close();
      await remote.app.dispose();
    });
    const local = new AppCore({
      host: { mode: 'serve', version: 't', allowOpenFolder: false },
      store: openStore({ path: null }),
      remotes: [remote.server.url],
      remoteTuning: { ...FAST, keep: { pointsPerSeries: 64, series: 8 }, fillGapMs: 5 },
    });
    cleanups.push(() => local.dispose());
    const pushes = pushesOf(local);
    // Three series, filled in the background: no client asked for any of them.
    await waitFor(() => local.remotes.keptSeries(host) === 3, 'the kept copies of its 3 series');

    // run1 grows while followed: its copy grows with the pushed points.
    const w = new EventFileWriter(join(root, 'run1'), {
      wallTime: 2000,
      fileName: 'events.out.tfevents.2000.h.2',
    });
    for (let i = 12; i < 20; i++) w.scalars(i, [{ tag: 'approx_kl', value: 0.03 }], 'simple', 2000 + i);
    w.close();
    const appended = (): number =>
      pushes
        .filter(
          (p) => p.event === 'series.appended' && (p.payload as { run: string }).run === `${host}//run1`,
        )
        .reduce((n, p) => n + (p.payload as { steps: Float64Array }).steps.length, 0);
    await waitFor(() => appended() === 8, 'the appended points');

    await remote.server.close();
    await remote.app.dispose();
    await waitFor(() => local.remotes.list()[0]!.state === 'disconnected', 'the endpoint lost');
    const h = createHandlers(local);
    const get = async (run: string, tag: string, more = {}): Promise<SeriesWindow> => {
      const r = await dispatch(h, 'series.get', { run: `${host}//${run}`, tag, pixels: 800, ...more });
      if (!r.ok) throw new Error(`${run}/${tag}: ${r.error.message}`);
      return r.value as SeriesWindow;
    };
    const kl = await get('run1', 'approx_kl');
    expect(kl).toMatchObject({ length: 20, downsampled: false });
    expect(Array.from(kl.steps)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // 500 points kept as at most 64, the spike still there; a zoomed chart gets the copy's points in its range.
    const loss = await get('run2', 'loss');
    expect(loss).toMatchObject({ length: 500, downsampled: true });
    expect(loss.steps.length).toBeLessThanOrEqual(64);
    expect(Math.max(...loss.values)).toBe(9);
    const zoomed = await get('run2', 'reward', { xMin: 100, xMax: 200 });
    expect(zoomed.steps.length).toBeGreaterThan(2);
    expect(Array.from(zoomed.steps.slice(1, -1)).every((s) => s >= 100 && s <= 200)).toBe(true);
    // A series the endpoint never had is still an error, not an empty chart.
    await expect(get('run2', 'nope')).rejects.toThrow(/not connected/);
  });

  test('a refused token shows as auth-failed; endpoints added through the contract are saved, removed ones forgotten', async () => {
    const remote = await endpoint(folderWithRun('remote-c', 0.01));
    cleanups.push(async () => {
      await remote.server.close();
      await remote.app.dispose();
    });
    const store = openStore({ path: null });
    const local = new AppCore({
      host: { mode: 'serve', version: 't', allowOpenFolder: false },
      store,
      remoteTuning: FAST,
    });
    cleanups.push(() => local.dispose());
    const h = createHandlers(local);
    const wrong = `http://127.0.0.1:${remote.server.port}/?token=wrong`;
    expect(await dispatch(h, 'endpoints.add', { url: wrong })).toMatchObject({
      ok: true,
      value: { state: 'connecting' },
    });
    await waitFor(() => local.remotes.list()[0]?.state === 'auth-failed', 'auth failed');
    expect(store.getSetting('remoteEndpoints')).toEqual([wrong]);
    expect(await dispatch(h, 'endpoints.add', { url: 'https://x/?token=1' })).toMatchObject({
      ok: false,
      error: { code: 'bad-request' },
    });
    expect(await dispatch(h, 'endpoints.remove', { id: `127.0.0.1:${remote.server.port}` })).toEqual({
      ok: true,
      value: null,
    });
    expect(store.getSetting('remoteEndpoints')).toEqual([]);
    expect(await dispatch(h, 'endpoints.remove', { id: 'nope:1' })).toMatchObject({
      ok: false,
      error: { code: 'not-found' },
    });
  });
});
