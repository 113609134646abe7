// Listening and closing an HTTP server, and its host as a URL shows it: what serve and the /metrics bind share.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on host:port (0: any free port) and resolves to the port bound; a bind error rejects. */
export function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((res, rej) => {
    server.once('error', rej);
    server.listen(port, host, () => {
      server.off('error', rej);
      res((server.address() as AddressInfo).port);
    });
  });
}

/** Drops every open connection and resolves once the server is closed. */
export function closeHttp(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((res) => server.close(() => res()));
}

/** A host as it stands in a URL: an IPv6 address in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
