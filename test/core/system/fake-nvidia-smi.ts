// A fake `nvidia-smi` shell script in a temp folder, put first on PATH, so tests exercise the real spawning path.

import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type FakeBehaviour =
  | { kind: 'replay'; xml: string; csv?: string; stderr?: string; exitCode?: number }
  | { kind: 'hang'; viaChild?: boolean }
  | { kind: 'exit'; code: number; stdout?: string; stderr?: string };

export interface FakeNvidiaSmi {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** One line per launch: "start PID" and "end PID". */
  log(): string[];
  launches(): number;
  /** Pids the hang script recorded: itself, and its child when `viaChild`. */
  hungPids(): number[];
  cleanup(): void;
}

const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export function installFakeNvidiaSmi(behaviour: FakeBehaviour): FakeNvidiaSmi {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-fake-smi-'));
  const logFile = join(dir, 'launches.log');
  const pidFile = join(dir, 'pids');
  writeFileSync(logFile, '');
  const lines = ['#!/bin/sh', `echo "start $$" >> ${q(logFile)}`];
  switch (behaviour.kind) {
    case 'replay': {
      const xmlFile = join(dir, 'dump.xml');
      const csvFile = join(dir, 'dump.csv');
      writeFileSync(xmlFile, behaviour.xml);
      writeFileSync(csvFile, behaviour.csv ?? '');
      if (behaviour.stderr) lines.push(`printf '%s\\n' ${q(behaviour.stderr)} >&2`);
      lines.push(
        `case "$1" in`,
        `  -q) cat ${q(xmlFile)} ;;`,
        `  --query-gpu=*) cat ${q(csvFile)} ;;`,
        `esac`,
      );
      lines.push(`echo "end $$" >> ${q(logFile)}`, `exit ${behaviour.exitCode ?? 0}`);
      break;
    }
    case 'hang':
      if (behaviour.viaChild) {
        // A shell that waits on a child: only a process-group kill takes both down.
        lines.push(`echo $$ >> ${q(pidFile)}`, 'sleep 1000 &', `echo $! >> ${q(pidFile)}`, 'wait');
      } else {
        lines.push(`echo $$ >> ${q(pidFile)}`, 'exec sleep 1000');
      }
      break;
    case 'exit':
      if (behaviour.stdout) lines.push(`printf '%s\\n' ${q(behaviour.stdout)}`);
      if (behaviour.stderr) lines.push(`printf '%s\\n' ${q(behaviour.stderr)} >&2`);
      lines.push(`echo "end $$" >> ${q(logFile)}`, `exit ${behaviour.code}`);
      break;
  }
  const script = join(dir, 'nvidia-smi');
  writeFileSync(script, lines.join('\n') + '\n');
  chmodSync(script, 0o755);
  const read = (f: string): string[] => {
    try {
      return readFileSync(f, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  return {
    dir,
    env: { ...process.env, PATH: `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}` },
    log: () => read(logFile),
    launches: () => read(logFile).filter((l) => l.startsWith('start')).length,
    hungPids: () => read(pidFile).map(Number),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Gone = no such process, or a zombie waiting for a reaper (it no longer runs). */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}
