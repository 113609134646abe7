// Types of scripts/lib/contention.js (the contended budget's stand-in trainer) for the tests that import it.
export interface Contention {
  count: number;
  pids: number[];
  stop(): void;
}
export function startContention(count?: number): Contention;
