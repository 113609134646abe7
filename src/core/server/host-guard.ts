// Which Host and Origin headers serve accepts: the names it is bound to, never a rebinding attacker's.

import { networkInterfaces } from 'node:os';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * Host names (without port) a request may name in its Host header: the loopback names, the bound
 * host, and, when bound to every interface, each interface's address (DNS rebinding still fails:
 * an attacker's name is never among them). As Jupyter and Vite do.
 */
export function allowedHostNames(boundHost: string): ReadonlySet<string> {
  const names = new Set(LOOPBACK_NAMES);
  names.add(bracketed(boundHost.toLowerCase()));
  if (WILDCARDS.has(boundHost)) {
    for (const list of Object.values(networkInterfaces())) {
      for (const a of list ?? []) names.add(bracketed(a.address.toLowerCase()));
    }
  }
  return names;
}

/** The host name of a Host header value (`name:port`, `[v6]:port`), lower-cased; null when malformed. */
export function hostNameOf(hostHeader: string | undefined): string | null {
  if (hostHeader === undefined || hostHeader.length === 0 || hostHeader.length > 300) return null;
  const h = hostHeader.toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(h);
  return m ? m[1]! : null;
}

export function hostAllowed(hostHeader: string | undefined, allowed: ReadonlySet<string>): boolean {
  const name = hostNameOf(hostHeader);
  return name !== null && allowed.has(name);
}

/** A socket's Origin must be present and be this very server as the page saw it (`http://` + Host). */
export function originMatches(origin: string | undefined, hostHeader: string | undefined): boolean {
  return (
    origin !== undefined &&
    hostHeader !== undefined &&
    origin.toLowerCase() === `http://${hostHeader.toLowerCase()}`
  );
}

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
