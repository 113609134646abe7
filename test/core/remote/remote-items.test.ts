// A remote run's texts, samples and histograms through a real second serve: the head answers exactly what the endpoint
// answers for its own run; a down, mute, older or hostile endpoint is a typed error, never a crash or a long wait.

import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { dispatch } from '../../../src/core/api/dispatch';
import { AppCore } from '../../../src/core/app/app-core';
import { createHandlers } from '../../../src/core/app/handlers';
import type { LinkTuning } from '../../../src/core/remote/remote-endpoint';
import { startServer, type RunningServer } from '../../../src/core/server/serve';
import { openStore } from '../../../src/core/store';
import type { RequestChannel } from '../../../src/shared/channels';
import type { Handlers } from '../../../src/shared/contract';
import type { Result } from '../../../src/shared/result';
import { encodeWire } from '../../../src/shared/wire-codec';
import { REMOTE_RUN } from '../../helpers/remote-run';
import { writeCompletionsJsonl } from '../../helpers/samples-fixtures';
import { waitFor } from '../../helpers/wait-for';

const TOKEN = 'remote-items-token-0123456789';
const GAN = 'events.out.tfevents.111.complex.localdomain';
const HF_RUN = 'hf-trainer/runs/Nov26_17-52-14_vm';
const TB_TEXT_RUN = 'tensorboardx-add-text';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'rlwatch-remote-items-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const appCore = (remotes: string[] = [], tuning: LinkTuning = {}): AppCore => {
  const app = new AppCore({
    host: { mode: 'serve', version: 't', allowOpenFolder: false },
    store: openStore({ path: null }),
    remotes,
    remoteTuning: {
      backoff: { baseMs: 20, maxMs: 100 },
      ...tuning,
      limits: { requestTimeoutMs: 5000, ...tuning.limits },
    },
  });
  cleanups.push(() => app.dispose());
  return app;
};

/** The endpoint's folder: a completions JSONL run, the TensorBoard text fixtures and a TF1 histogram file. */
function endpointFolder(): string {
  const root = join(tmp, 'endpoint');
  writeCompletionsJsonl(join(root, 'grpo'), 30);
  cpSync(join(__dirname, '../../fixtures/tfevents-text'), root, { recursive: true });
  mkdirSync(join(root, 'gan'), { recursive: true });
  copyFileSync(join(__dirname, '../../fixtures/tfevents/wandb__wandb', GAN), join(root, 'gan', GAN));
  return root;
}

/** A real `rlwatch serve` of `root`: a remote endpoint, and its handlers to ask it directly. */
async function endpoint(root: string): Promise<{ app: AppCore; handlers: Handlers; server: RunningServer }> {
  const app = appCore();
  await app.open(root);
  await waitFor(() => app.runs().length >= 8 && app.runs().every((r) => r.loaded), 'the endpoint loaded');
  const handlers = createHandlers(app);
  const server = await startServer({
    bus: app.bus,
    handlers,
    rendererDir: tmp,
    token: TOKEN,
    port: 0,
    log: () => {},
  });
  cleanups.push(() => server.close());
  return { app, handlers, server };
}

/** A fake endpoint listing one run `r`, answering other channels as `answer` says (null: never). */
async function fakeEndpoint(answer: (channel: string, ws: WebSocket, id: number) => void): Promise<string> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((r) => wss.once('listening', r));
  wss.on('connection', (ws) =>
    ws.on('message', (data) => {
      const { id, channel } = JSON.parse(data.toString()) as { id: number; channel: string };
      if (channel === 'runs.list')
        return ws.send(encodeWire({ id, result: { ok: true, value: [REMOTE_RUN] } }));
      if (channel === 'alerts.list' || channel === 'series.get')
        return ws.send(
          encodeWire({ id, result: { ok: false, error: { code: 'not-found', message: 'no' } } }),
        );
      answer(channel, ws, id);
    }),
  );
  cleanups.push(
    () =>
      new Promise((r) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => r());
      }),
  );
  return `http://127.0.0.1:${(wss.address() as AddressInfo).port}/?token=tok`;
}

type Asked = { channel: RequestChannel; args: { run: string } & Record<string, unknown> };

/** What each channel is asked about the endpoint's runs (by their own names there). */
const ASKED: Asked[] = [
  { channel: 'samples.list', args: { run: 'grpo' } },
  { channel: 'samples.get', args: { run: 'grpo', source: 'completions.jsonl', step: 20 } },
  {
    channel: 'samples.get',
    args: {
      run: 'grpo',
      source: 'completions.jsonl',
      step: 30,
      offset: 5,
      limit: 7,
      sort: { column: 'reward', desc: true },
    },
  },
  {
    channel: 'samples.get',
    args: {
      run: 'grpo',
      source: 'completions.jsonl',
      step: 30,
      search: 'STEP',
      sort: { column: 'completion', by: 'length' },
    },
  },
  { channel: 'samples.list', args: { run: HF_RUN } },
  { channel: 'texts.list', args: { run: HF_RUN } },
  { channel: 'texts.get', args: { run: HF_RUN, tag: 'args/text_summary' } },
  { channel: 'texts.list', args: { run: TB_TEXT_RUN } },
  { channel: 'texts.get', args: { run: TB_TEXT_RUN, tag: 'samples/completion/text_summary' } },
  {
    channel: 'texts.get',
    args: { run: TB_TEXT_RUN, tag: 'samples/completion/text_summary', step: 1, limit: 5 },
  },
  { channel: 'histograms.list', args: { run: 'gan' } },
  { channel: 'histograms.get', args: { run: 'gan', tag: 'gradient/netG_A/norm/histogram' } },
  // The endpoint's own refusals come back typed as it gave them.
  { channel: 'samples.get', args: { run: 'grpo', source: 'nope.jsonl', step: 20 } },
  {
    channel: 'samples.get',
    args: { run: 'grpo', source: 'completions.jsonl', step: 20, sort: { column: 'nope' } },
  },
  { channel: 'texts.get', args: { run: HF_RUN, tag: 'nope' } },
  { channel: 'histograms.get', args: { run: 'gan', tag: 'nope' } },
  { channel: 'histograms.list', args: { run: 'no-such-run' } },
];

/** The endpoint's answer as the head should give it: its run name replaced by our key. */
function underKey(r: Result<unknown>, key: string): Result<unknown> {
  if (!r.ok || typeof r.value !== 'object' || r.value === null || Array.isArray(r.value)) return r;
  return 'run' in r.value ? { ok: true, value: { ...r.value, run: key } } : r;
}

describe("a remote run's texts, samples and histograms", () => {
  test('the head answers each channel with exactly what the endpoint answers for its own run', async () => {
    const remote = await endpoint(endpointFolder());
    const host = `127.0.0.1:${remote.server.port}`;
    const head = appCore([remote.server.url]);
    const h = createHandlers(head);
    await waitFor(() => head.runs().length >= 8, 'the remote runs in the head');

    for (const { channel, args } of ASKED) {
      const own = await dispatch(remote.handlers, channel, args);
      const key = `${host}//${args.run}`;
      const viaHead = await dispatch(h, channel, { ...args, run: key });
      expect({ channel, args, answer: viaHead }).toEqual({ channel, args, answer: underKey(own, key) });
    }
    // The answers are real ones: the hostile step holds its cut 1 MB string, the histograms their steps.
    const hostile = await dispatch(h, 'samples.get', {
      run: `${host}//grpo`,
      source: 'completions.jsonl',
      step: 20,
    });
    expect(hostile).toMatchObject({ ok: true, value: { run: `${host}//grpo`, total: 8 } });
    expect(hostile.ok && (hostile.value as { truncated: boolean[] }).truncated.filter(Boolean)).toEqual([
      true,
    ]);
    expect(
      await dispatch(h, 'histograms.get', { run: `${host}//gan`, tag: 'gradient/netG_A/norm/histogram' }),
    ).toMatchObject({ ok: true, value: { run: `${host}//gan`, kept: 12, seen: 12 } });
    // A key of an endpoint the head does not follow is no run of its own either: not found.
    expect(await dispatch(h, 'samples.list', { run: '10.0.0.1:9//grpo' })).toMatchObject({
      ok: false,
      error: { code: 'not-found' },
    });

    // The endpoint goes down: its runs stay listed, their items are unavailable and say why.
    await remote.server.close();
    await waitFor(() => head.remotes.list()[0]?.state !== 'connected', 'the head saw it go');
    for (const channel of ['samples.list', 'texts.list', 'histograms.list'] as const) {
      const r = await dispatch(h, channel, { run: `${host}//grpo` });
      expect(r).toMatchObject({
        ok: false,
        error: { code: 'unavailable', message: `${host} is not connected` },
      });
    }
  });

  test('an older endpoint without the channel, and one that is mute, are unavailable and say so', async () => {
    const older = await fakeEndpoint((channel, ws, id) =>
      ws.send(
        encodeWire({
          id,
          result: { ok: false, error: { code: 'unknown-channel', message: `unknown channel "${channel}"` } },
        }),
      ),
    );
    const mute = await fakeEndpoint(() => {});
    // A request timeout far past the mute wait: the answer cannot be the timeout's. No background copy of their series:
    // an answer to one of those fetches while a request waits would be the endpoint heard from, not mute.
    const head = appCore([older, mute], {
      slowAnswerMs: 50,
      limits: { requestTimeoutMs: 60_000 },
      keep: { series: 0 },
    });
    const h = createHandlers(head);
    await waitFor(() => head.runs().length === 2, 'both fake runs');
    const [olderHost, muteHost] = [older, mute].map((u) => new URL(u).host);

    for (const [channel, args] of [
      ['samples.list', {}],
      ['samples.get', { source: 's', step: 1 }],
      ['texts.list', {}],
      ['texts.get', { tag: 't' }],
      ['histograms.list', {}],
      ['histograms.get', { tag: 't' }],
    ] as const) {
      expect(await dispatch(h, channel, { run: `${olderHost}//r`, ...args })).toEqual({
        ok: false,
        error: {
          code: 'unavailable',
          message: `${olderHost} runs an older rlwatch that does not serve ${channel}`,
        },
      });
      expect(await dispatch(h, channel, { run: `${muteHost}//r`, ...args })).toEqual({
        ok: false,
        error: { code: 'unavailable', message: `${muteHost} is not answering ${channel}` },
      });
    }
  });

  test('garbage, out-of-bounds and oversized answers are typed errors; the head goes on', async () => {
    const page = (rows: unknown[][]): unknown => ({
      run: 'r',
      source: 's',
      step: 1,
      columns: [{ name: 'c', kind: 'text' }],
      total: rows.length,
      matched: rows.length,
      offset: 0,
      rows,
      truncated: rows.map(() => false),
      index: rows.map((_, i) => i),
      histograms: [],
    });
    const answers: Record<string, unknown> = {
      // Not a page at all; a page of 1001 rows (ours hold ≤ 1000); a row with a cell per column missing.
      'samples.list': [{ source: 5 }],
      'texts.list': { tags: 'many' },
      'samples.get': page(Array.from({ length: 1001 }, () => ['x'])),
      'histograms.get': {
        run: 'r',
        tag: 't',
        edges: [0, 1, 2],
        steps: [1],
        wallTimes: [1],
        counts: [[1]],
        percentiles: [[0, 0, 0, 0, 0, 0, 0, 0, 0]],
        kept: 1,
        seen: 1,
        dropped: 0,
      },
    };
    const url = await fakeEndpoint((channel, ws, id) => {
      // texts.get: one answer past the head's message cap.
      if (channel === 'texts.get')
        return ws.send(
          encodeWire({
            id,
            result: { ok: true, value: { run: 'r', tag: 't', items: [], pad: 'x'.repeat(300_000) } },
          }),
        );
      if (channel === 'histograms.list') return ws.send('{"id": ' + String(id) + ', "result": ');
      ws.send(encodeWire({ id, result: { ok: true, value: answers[channel] } }));
    });
    const head = appCore([url], {
      limits: { maxMessageBytes: 256 * 1024, requestTimeoutMs: 1000 },
      keep: { series: 0 },
    });
    const h = createHandlers(head);
    await waitFor(() => head.runs().length === 1, 'the fake run');
    const key = `${new URL(url).host}//r`;
    const host = new URL(url).host;

    for (const [channel, args] of [
      ['samples.list', {}],
      ['texts.list', {}],
      ['samples.get', { source: 's', step: 1 }],
      ['histograms.get', { tag: 't' }],
    ] as const) {
      expect(await dispatch(h, channel, { run: key, ...args })).toEqual({
        ok: false,
        error: { code: 'internal', message: `${host} sent a malformed ${channel} answer` },
      });
    }
    // An answer that is not even JSON never settles its request: it times out, typed.
    expect(await dispatch(h, 'histograms.list', { run: key })).toMatchObject({
      ok: false,
      error: { code: 'unavailable', message: expect.stringMatching(/did not answer histograms\.list/) },
    });
    // Over the cap: refused at its frame header, the link dropped and the request failed saying why.
    expect(await dispatch(h, 'texts.get', { run: key, tag: 't' })).toEqual({
      ok: false,
      error: {
        code: 'unavailable',
        message: `${host}: connection lost (dropped: a message over the size limit (256 KiB))`,
      },
    });
    // The link comes back and the head still answers, its run still listed.
    await waitFor(() => head.remotes.list()[0]?.state === 'connected', 'reconnected');
    expect(await dispatch(h, 'samples.list', { run: key })).toMatchObject({
      ok: false,
      error: { code: 'internal' },
    });
    expect(head.runs().map((r) => r.run)).toEqual([key]);
  });
});
