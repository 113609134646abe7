// A trackio writer in a child node process (better-sqlite3, busy timeout 0, as a strict writer that fails fast), for tests that read a database while it is committed to.

import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { createInterface } from 'node:readline';

/** The child: commits one trackio metrics row (step N, loss N) every `every` ms until told to pause, resume or quit,
 * counting the commits that failed (a lock it met) by SQLite error code. `stall` instead writes one transaction big
 * enough to spill into the database file (its journal hot) and waits, never committing: a writer stopped mid-commit
 * once killed. */
const CHILD = String.raw`
const Database = require('better-sqlite3');
const [path, mode, every, autocheckpoint] = process.argv.slice(1);
const db = new Database(path, { timeout: 0 });
db.pragma('busy_timeout = 0');
db.pragma('journal_mode = ' + (mode === 'wal' ? 'WAL' : 'DELETE'));
if (mode === 'wal') db.pragma('wal_autocheckpoint = ' + autocheckpoint);
const insert = db.prepare('INSERT INTO metrics (run_id, timestamp, run_name, step, metrics) VALUES (?, ?, ?, ?, ?)');
const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const pad = 'x'.repeat(700);
const row = (step) => [
  'r1', new Date(1.7e12 + step * 1000).toISOString().replace('Z', '+00:00'), 'ppo', step, JSON.stringify({ loss: step, pad }),
];
if (mode === 'stall') {
  db.pragma('cache_size = 2');
  db.exec('BEGIN');
  for (let i = 0; i < 2000; i++) insert.run(...row(1000000 + i));
  say({ stalled: true });
  setInterval(() => {}, 1000);
} else {
  let step = 0, failures = 0, paused = false, timer = null;
  const codes = {};
  const tick = () => {
    if (!paused) {
      try {
        insert.run(...row(step));
        step++;
      } catch (e) {
        failures++;
        codes[e.code] = (codes[e.code] || 0) + 1;
      }
    }
    timer = setTimeout(tick, Number(every));
  };
  let buf = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d) => {
    buf += d;
    for (let i; (i = buf.indexOf('\n')) >= 0; ) {
      const cmd = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (cmd === 'pause') {
        paused = true;
        say({ paused: step });
      } else if (cmd === 'resume') paused = false;
      else if (cmd === 'quit') {
        clearTimeout(timer);
        db.close();
        say({ commits: step, failures, codes });
        process.exit(0);
      }
    }
  });
  say({ ready: true });
  tick();
}
`;

export interface WriterResult {
  commits: number;
  failures: number;
  codes: Record<string, number>;
}

export class LiveDbWriter {
  private readonly lines: string[] = [];
  private waiting: ((line: string) => void) | null = null;

  private constructor(private readonly child: ChildProcessByStdio<Writable, Readable, null>) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = null;
        w(line);
      } else this.lines.push(line);
    });
  }

  /** A writer committing to the trackio database at `path` (its tables made) every `everyMs`; in WAL mode it
   * checkpoints every `autocheckpoint` pages (SQLite's default is 1000: a small one checkpoints, and restarts the
   * WAL, many times a second). `stall`: see CHILD. */
  static async start(
    path: string,
    mode: 'wal' | 'delete' | 'stall',
    opts: { everyMs?: number; autocheckpoint?: number } = {},
  ): Promise<LiveDbWriter> {
    const child = spawn(
      process.execPath,
      ['-e', CHILD, path, mode, String(opts.everyMs ?? 20), String(opts.autocheckpoint ?? 16)],
      { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const w = new LiveDbWriter(child);
    await w.next();
    return w;
  }

  private next(): Promise<Record<string, unknown>> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(JSON.parse(line) as Record<string, unknown>);
    return new Promise((res, rej) => {
      this.waiting = (l) => res(JSON.parse(l) as Record<string, unknown>);
      this.child.once('exit', (code) => rej(new Error(`the writer exited (${code})`)));
    });
  }

  /** Stops committing (between two commits; the connection stays open); the number of commits made. */
  async pause(): Promise<number> {
    this.child.stdin.write('pause\n');
    return (await this.next()).paused as number;
  }

  resume(): void {
    this.child.stdin.write('resume\n');
  }

  /** Closes the connection (SQLite checkpoints and removes its -wal and -shm if it can) and exits. */
  async quit(): Promise<WriterResult> {
    this.child.stdin.write('quit\n');
    const r = (await this.next()) as unknown as WriterResult;
    await new Promise((res) => (this.child.exitCode !== null ? res(null) : this.child.once('exit', res)));
    return r;
  }

  /** SIGKILL, as a crash: what it wrote stays as it was. */
  async kill(): Promise<void> {
    const gone = new Promise((res) => this.child.once('exit', res));
    this.child.kill('SIGKILL');
    await gone;
  }
}
