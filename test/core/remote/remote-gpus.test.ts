// A remote's system samples as a job node's GPU figure: only fresh, well-formed utilisations count, only while up.

import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppCore } from '../../../src/core/app/app-core';
import { openStore } from '../../../src/core/store';
import { encodeWire } from '../../../src/shared/wire-codec';
import { REMOTE_RUN } from '../../helpers/remote-run';
import { waitFor } from '../../helpers/wait-for';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

describe("a remote node's GPUs", () => {
  test('the mean of its newest fresh sample; stale and malformed samples change nothing; gone once it is away', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((r) => wss.once('listening', r));
    const close = (): Promise<void> =>
      new Promise((r) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => r());
      });
    closers.push(close);
    let peer: WebSocket | null = null;
    wss.on('connection', (ws: WebSocket) => {
      peer = ws;
      ws.on('message', (data) => {
        const { id, channel } = JSON.parse(data.toString()) as { id: number; channel: string };
        ws.send(encodeWire({ id, result: { ok: true, value: channel === 'runs.list' ? [REMOTE_RUN] : [] } }));
      });
    });
    const id = `127.0.0.1:${(wss.address() as AddressInfo).port}`;
    const app = new AppCore({
      host: { mode: 'serve', version: 't', allowOpenFolder: false },
      store: openStore({ path: null }),
      remotes: [`http://${id}/?token=tok`],
      remoteTuning: { backoff: { baseMs: 20, maxMs: 100 }, keep: { series: 0 } },
    });
    closers.push(() => app.dispose());
    await waitFor(() => app.remotes.list()[0]?.state === 'connected' && peer !== null, 'connected');
    const send = (payload: unknown): void =>
      peer!.send(JSON.stringify({ event: 'system.snapshot', payload }));
    // Connected as a node once its run list came.
    await waitFor(() => app.remotes.nodeFacts(id).connected, 'its run list taken');
    expect(app.remotes.nodeFacts(id)).toEqual({ connected: true, gpuUtilPct: null });

    send({
      t: Date.now(),
      gpus: [{ utilizationGpuPct: 10 }, { utilizationGpuPct: 30 }, { utilizationGpuPct: null }],
    });
    await waitFor(() => app.remotes.nodeFacts(id).gpuUtilPct === 20, 'the mean of the fresh sample');
    // Repeated last figures (nvidia-smi late) and malformed samples keep the last fresh read.
    send({ t: Date.now(), gpus: [{ utilizationGpuPct: 99 }], gpusStale: true });
    send({ t: Date.now(), gpus: 'lots' });
    send({ t: 'now', gpus: [] });
    await waitFor(() => app.remotes.list()[0]!.dropped === 2, 'the two malformed samples counted');
    expect(app.remotes.nodeFacts(id).gpuUtilPct).toBe(20);

    // Away: no figure (an old reading says nothing about now).
    await close();
    await waitFor(() => app.remotes.list()[0]!.state !== 'connected', 'the link down');
    // …and since when it is away (the job rules' agent-unreachable clock).
    const facts = app.remotes.nodeFacts(id);
    expect(facts).toEqual({ connected: false, awaySince: expect.any(Number), gpuUtilPct: null });
    expect(facts.awaySince!).toBeLessThanOrEqual(app.remotes.list()[0]!.since);
  });

  test('a link back up is a connected node only once its run list came: the stale list it left is never judged (#38)', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = new WebSocketServer({ port: 0, host: '127.0.0.1' }, () => {
        const p = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(p));
      });
    });
    let release: (() => void) | null = null;
    const serveOn = async (holdRuns: boolean): Promise<() => Promise<void>> => {
      const wss = new WebSocketServer({ port, host: '127.0.0.1' });
      await new Promise((r) => wss.once('listening', r));
      wss.on('connection', (ws: WebSocket) =>
        ws.on('message', (data) => {
          const { id, channel } = JSON.parse(data.toString()) as { id: number; channel: string };
          const answer = (): void =>
            ws.send(
              encodeWire({ id, result: { ok: true, value: channel === 'runs.list' ? [REMOTE_RUN] : [] } }),
            );
          if (holdRuns && channel === 'runs.list') release = answer;
          else answer();
        }),
      );
      const close = (): Promise<void> =>
        new Promise((r) => {
          for (const c of wss.clients) c.terminate();
          wss.close(() => r());
        });
      closers.push(close);
      return close;
    };
    const closeFirst = await serveOn(false);
    const id = `127.0.0.1:${port}`;
    const app = new AppCore({
      host: { mode: 'serve', version: 't', allowOpenFolder: false },
      store: openStore({ path: null }),
      remotes: [`http://${id}/?token=tok`],
      remoteTuning: { backoff: { baseMs: 20, maxMs: 100 }, keep: { series: 0 } },
    });
    closers.push(() => app.dispose());
    await waitFor(() => app.remotes.nodeFacts(id).connected, 'connected with its run list');
    await closeFirst();
    await waitFor(() => !app.remotes.nodeFacts(id).connected, 'away');
    const awaySince = app.remotes.nodeFacts(id).awaySince;
    expect(awaySince).toEqual(expect.any(Number));

    // Back up, but its run list not yet answered: the link is connected, the node is still away since then.
    await serveOn(true);
    await waitFor(
      () => app.remotes.list()[0]!.state === 'connected' && release !== null,
      'link up, list asked',
    );
    expect(app.remotes.nodeFacts(id)).toMatchObject({ connected: false, awaySince });
    release!();
    await waitFor(() => app.remotes.nodeFacts(id).connected, 'a node again once its run list came');
  });
});
