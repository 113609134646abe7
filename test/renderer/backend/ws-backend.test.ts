// A browser tab's link to serve reconnects on the one backoff schedule of every link (shared/backoff.ts).

import { afterEach, expect, test, vi } from 'vitest';
import { wsBackend } from '../../../src/renderer/src/backend/ws-backend';
import { backoffDelay, DEFAULT_BACKOFF } from '../../../src/shared/backoff';

/** A WebSocket to a serve that is down: every attempt closes at once. */
class DownSocket {
  static OPEN = 1;
  static made = 0;
  readyState = 3;
  onopen: (() => void) | null = null;
  onmessage: (() => void) | null = null;
  onclose: (() => void) | null = null;
  constructor() {
    DownSocket.made++;
    queueMicrotask(() => this.onclose?.());
  }
  send(): void {}
  close(): void {}
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

test("the tab's retries wait the same delays as a remote endpoint's link", async () => {
  vi.useFakeTimers();
  vi.stubGlobal('WebSocket', DownSocket);
  vi.spyOn(Math, 'random').mockReturnValue(0.5);
  const timer = vi.spyOn(globalThis, 'setTimeout');
  const states: string[] = [];
  wsBackend(new URL('http://127.0.0.1:1/?token=t')).onConnection((s) => states.push(s));
  const delays: number[] = [];
  for (let i = 0; i < 9; i++) {
    await Promise.resolve();
    const delay = timer.mock.calls.at(-1)![1]!;
    delays.push(delay);
    vi.advanceTimersByTime(delay);
  }
  const same = { ...DEFAULT_BACKOFF, random: () => 0.5 };
  expect(delays).toEqual(Array.from({ length: 9 }, (_, a) => backoffDelay(a, same)));
  expect(DownSocket.made).toBe(10);
  expect(states.every((s) => s === 'reconnecting')).toBe(true);
});
