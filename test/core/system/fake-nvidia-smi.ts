// A fake `nvidia-smi` shell script in a temp folder, put first on PATH, so tests exercise the real spawning path.
//
// Modes: replay a dump once per launch, hang, exit with a status, or stream: with `-lms N` print the recorded
// CSV row set every N ms from one long-lived bash process (no fork per interval), optionally with stderr
// noise, dying or going silent after some sets on its first streaming launch, or refusing `-lms`.

import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type FakeBehaviour =
  | { kind: 'replay'; xml: string; csv?: string; stderr?: string; exitCode?: number }
  | { kind: 'hang'; viaChild?: boolean }
  | { kind: 'exit'; code: number; stdout?: string; stderr?: string }
  | StreamBehaviour;

export interface StreamBehaviour {
  kind: 'stream';
  /** Answer to `-q -x` (one-shot). */
  xml: string;
  /** The row set (one line per GPU, noheader,nounits) printed every interval; also the one-shot CSV answer. */
  csv: string;
  /** Printed to stderr with every set. */
  stderr?: string;
  /** First streaming launch only: after `sets` sets, exit with `code` (a mid-stream death) or go silent. */
  firstRun?: { sets: number; then: 'exit' | 'hang'; code?: number };
  /** Every streaming launch hangs before printing anything. */
  streamHang?: boolean;
  /** Like an nvidia-smi without `-lms`: prints its usage complaint and exits 2 (one-shots still work). */
  noLoop?: boolean;
}

export interface FakeNvidiaSmi {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** One line per launch: "start PID" and "end PID". */
  log(): string[];
  launches(): number;
  /** Pids the hang script recorded: itself, and its child when `viaChild`. */
  hungPids(): number[];
  /** Streaming launches (`-lms`), and their pids in order. */
  streamLaunches(): number;
  streamPids(): number[];
  /** Swap the script for another behaviour (say, nvidia-smi uninstalled) without touching the logs. */
  replace(behaviour: FakeBehaviour): void;
  cleanup(): void;
}

const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export function installFakeNvidiaSmi(behaviour: FakeBehaviour): FakeNvidiaSmi {
  const dir = mkdtempSync(join(tmpdir(), 'rlwatch-fake-smi-'));
  const logFile = join(dir, 'launches.log');
  writeFileSync(logFile, '');
  const script = join(dir, 'nvidia-smi');
  const write = (b: FakeBehaviour): void => {
    writeFileSync(script, scriptFor(b, dir, logFile));
    chmodSync(script, 0o755);
  };
  write(behaviour);
  const read = (f: string): string[] => {
    try {
      return readFileSync(f, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  const streams = (): string[] => read(logFile).filter((l) => l.startsWith('stream '));
  return {
    dir,
    env: { ...process.env, PATH: `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}` },
    log: () => read(logFile).filter((l) => !l.startsWith('stream ')),
    launches: () => read(logFile).filter((l) => l.startsWith('start')).length,
    hungPids: () => read(join(dir, 'pids')).map(Number),
    streamLaunches: () => streams().length,
    streamPids: () => streams().map((l) => Number(l.split(' ')[1])),
    replace: write,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function scriptFor(behaviour: FakeBehaviour, dir: string, logFile: string): string {
  const pidFile = join(dir, 'pids');
  if (behaviour.kind === 'stream') return streamScript(behaviour, dir, logFile);
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
  return lines.join('\n') + '\n';
}

/** bash, for `read -t` as a fork-free sleep: the streaming process costs what a real loop would, not a fork a set. */
function streamScript(b: StreamBehaviour, dir: string, logFile: string): string {
  const xmlFile = join(dir, 'dump.xml');
  const csvFile = join(dir, 'dump.csv');
  writeFileSync(xmlFile, b.xml);
  writeFileSync(csvFile, b.csv.endsWith('\n') ? b.csv : b.csv + '\n');
  const runsFile = join(dir, 'stream-runs');
  const lines = [
    '#!/bin/bash',
    `echo "start $$" >> ${q(logFile)}`,
    'lms=""; prev=""',
    'for a in "$@"; do [ "$prev" = "-lms" ] && lms="$a"; prev="$a"; done',
    'if [ -n "$lms" ]; then',
    `  echo "stream $$" >> ${q(logFile)}`,
  ];
  if (b.noLoop) {
    lines.push(
      `  echo "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help."`,
      `  echo "end $$" >> ${q(logFile)}`,
      '  exit 2',
    );
  }
  if (b.streamHang) lines.push(`  echo $$ >> ${q(join(dir, 'pids'))}`, '  exec sleep 1000');
  lines.push(
    `  run=$(( $(cat ${q(runsFile)} 2>/dev/null || echo 0) + 1 )); echo $run > ${q(runsFile)}`,
    `  rows=$(cat ${q(csvFile)})`,
    '  secs=$((lms / 1000)).$(printf %03d $((lms % 1000)))',
    '  exec 3<> <(:)',
    '  n=0',
    '  while :; do',
    `    printf '%s\n' "$rows" || exit 1`,
  );
  if (b.stderr) lines.push(`    printf '%s\n' ${q(b.stderr)} >&2`);
  lines.push('    n=$((n + 1))');
  if (b.firstRun) {
    const then =
      b.firstRun.then === 'exit'
        ? `echo "end $$" >> ${q(logFile)}; exit ${b.firstRun.code ?? 1}`
        : `echo $$ >> ${q(join(dir, 'pids'))}; exec sleep 1000`;
    lines.push(`    if [ "$run" = 1 ] && [ "$n" -ge ${b.firstRun.sets} ]; then ${then}; fi`);
  }
  lines.push(
    '    read -t "$secs" -u 3',
    '  done',
    'fi',
    'case "$1" in',
    `  -q) cat ${q(xmlFile)} ;;`,
    `  --query-gpu=*) cat ${q(csvFile)} ;;`,
    'esac',
    `echo "end $$" >> ${q(logFile)}`,
  );
  return lines.join('\n') + '\n';
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
