// A remote link loads ws on its first connect, not with its module: a process that follows no endpoint never loads it
// (serve's start-up, #36); the link then connects and answers as ever.

import type { AddressInfo } from 'node:net';
import { expect, test, vi } from 'vitest';
import type * as Ws from 'ws';
import type { EndpointState } from '../../../src/shared/domain';
import { encodeWire } from '../../../src/shared/wire-codec';

/** How often the ws package was loaded in this file. */
const loaded = vi.hoisted(() => ({ ws: 0 }));

vi.mock('ws', async (importOriginal) => {
  loaded.ws++;
  return importOriginal<typeof Ws>();
});

test('ws loads on the first connect; the link then connects and a request is answered', async () => {
  const { RemoteLink } = await import('../../../src/core/remote/remote-link');
  const { parseEndpointUrl } = await import('../../../src/core/remote/endpoint-url');
  expect(loaded.ws).toBe(0);

  const { WebSocketServer } = await import('ws');
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((res) => server.once('listening', res));
  server.on('connection', (socket) =>
    socket.on('message', (data) => {
      const { id } = JSON.parse(String(data)) as { id: number };
      socket.send(encodeWire({ id, result: { ok: true, value: 42 } }));
    }),
  );
  const { port } = server.address() as AddressInfo;
  const states: EndpointState[] = [];
  let isOpen: () => void = () => {};
  const opened = new Promise<void>((res) => (isOpen = res));
  const link = new RemoteLink(parseEndpointUrl(`http://127.0.0.1:${port}/?token=abcdefghijklmnop`), {
    opened: () => isOpen(),
    push: () => {},
    state: (s) => states.push(s),
    garbage: () => {},
  });
  try {
    link.start();
    link.start(); // a second start while ws loads opens no second socket
    await opened;
    expect(states).toEqual(['connected']);
    expect(server.clients.size).toBe(1);
    expect(await link.request('runs.list', {})).toEqual({ ok: true, value: 42 });
    expect(loaded.ws).toBe(1);
  } finally {
    link.close();
    server.close();
  }
});
