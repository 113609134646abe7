// One bounded pass over /proc for all runs: which process belongs to which run, on write evidence only (files open for writing, cwd, command line; never a viewer's).

import { dirname, isAbsolute, resolve, sep } from 'node:path';
import type { ProcessEvidence } from '../../shared/system-types';
import { isRlwatchCommand, readPackageName } from './own-process';
import type { PackageNameReader } from './own-process';
import {
  DEFAULT_SCAN_LIMITS,
  listFds,
  listPids,
  readCmdline,
  readCwd,
  readFdOpenings,
  readProcStats,
} from './proc';
import type { ScanLimits } from './proc';
import { isViewerCommand } from './viewer-process';

/** A run and its folder: `dirs` are the names it may go by (as opened, and resolved), absolute. */
export interface RunFolder {
  run: string;
  dirs: readonly string[];
}

export interface Attribution {
  pid: number;
  run: string;
  evidence: ProcessEvidence;
  /** From /proc/PID/stat: tells this process from a later one given the same pid. */
  startTicks: number;
}

export interface AttributionOptions {
  procRoot: string;
  /** Never attributed: our own pid and our parent (the shell or launcher that started rlwatch). */
  exclude: ReadonlySet<number>;
  /** Processes whose parent is this pid are our children (nvidia-smi, the Electron window): never attributed. */
  selfPid: number;
  limits?: ScanLimits;
  packageName?: PackageNameReader;
}

/** Finds the run whose folder holds `path` (the deepest one when run folders nest): a lookup per folder above the
 * path, not a comparison with every run's folder (10k runs × every open file of every process was seconds a scan). */
class RunMatcher {
  private readonly byDir = new Map<string, string>();

  constructor(runs: readonly RunFolder[]) {
    for (const r of runs)
      for (const dir of r.dirs) {
        const key = dir.length > 1 && dir.endsWith(sep) ? dir.slice(0, -1) : dir;
        if (!this.byDir.has(key)) this.byDir.set(key, r.run);
      }
  }

  runOf(path: string): string | null {
    for (let p = path; ; ) {
      const run = this.byDir.get(p);
      if (run !== undefined) return run;
      const up = dirname(p);
      if (up === p) return null;
      p = up;
    }
  }

  runsOf(paths: Iterable<string>): Set<string> {
    const out = new Set<string>();
    for (const p of paths) {
      const run = this.runOf(p);
      if (run !== null) out.add(run);
    }
    return out;
  }
}

/** Runs the arguments name (an argument, or the value of `--opt=VALUE`, that is a run folder or a path in
 * one). A relative one is resolved against the cwd; one that stays in the cwd's own run (`train.py` run
 * from the run folder) names nothing new: that is the cwd's evidence. */
function runsNamed(argv: readonly string[], cwd: string | null, match: RunMatcher): Set<string> {
  const cwdRun = cwd === null ? null : match.runOf(cwd);
  const out = new Set<string>();
  for (const arg of argv) {
    const eq = arg.startsWith('-') ? arg.indexOf('=') : -1;
    const value = eq >= 0 ? arg.slice(eq + 1) : arg;
    if (value === '' || value.startsWith('-')) continue;
    const relative = !isAbsolute(value);
    if (relative && cwd === null) continue;
    const run = match.runOf(relative ? resolve(cwd!, value) : resolve(value));
    if (run !== null && !(relative && run === cwdRun)) out.add(run);
  }
  return out;
}

/** Ancestors' depth looked at: the chain from a desktop session to rlwatch is a few processes deep. */
const MAX_ANCESTORS = 32;

/**
 * The processes that started rlwatch (its parent, that one's parent, … up to init): a shell, `npm run`, a launcher
 * script naming the run folder on its command line started us; none of them is the run's trainer.
 */
async function ancestorsOf(selfPid: number, procRoot: string): Promise<Set<number>> {
  const out = new Set<number>();
  let pid = selfPid;
  for (let i = 0; i < MAX_ANCESTORS; i++) {
    const ppid = (await readProcStats(pid, procRoot))?.ppid ?? 0;
    if (ppid <= 1 || out.has(ppid)) break;
    out.add(ppid);
    pid = ppid;
  }
  return out;
}

/**
 * Each process of this user (whose fd folder can be read; others' are refused by the kernel) that is not
 * rlwatch's own nor a viewer is tied to the runs its strongest evidence names: the run folders it holds files
 * open for writing under; else (when it holds none of their files open for reading only, as a reader does)
 * those its command line names; else the one its cwd lies in. GPU use is no evidence.
 * One pass over /proc however many runs; cwd and argv are read only for these candidates.
 */
export async function attributeProcesses(
  runs: readonly RunFolder[],
  opts: AttributionOptions,
): Promise<Attribution[]> {
  if (runs.length === 0) return [];
  const limits = opts.limits ?? DEFAULT_SCAN_LIMITS;
  const packageName = opts.packageName ?? readPackageName;
  const match = new RunMatcher(runs);
  const found: Attribution[] = [];
  const launchers = await ancestorsOf(opts.selfPid, opts.procRoot);
  for (const pid of await listPids(opts.procRoot, limits)) {
    if (opts.exclude.has(pid) || launchers.has(pid)) continue;
    const fds = await listFds(pid, opts.procRoot);
    if (fds === null) continue;
    const argv = await readCmdline(pid, opts.procRoot);
    // An empty command line: a kernel thread or a zombie, never a trainer.
    if (argv.length === 0) continue;
    const cwd = await readCwd(pid, opts.procRoot);
    if (await isRlwatchCommand(argv, cwd, packageName)) continue;
    // A viewer (tail -f, less, tensorboard, a browser, a test driver) reads runs and never trains one.
    if (isViewerCommand(argv)) continue;
    const opens = await readFdOpenings(pid, fds, opts.procRoot, limits.maxFdsPerProcess);
    let evidence: ProcessEvidence = 'open-files';
    // Only a file open for writing is the writer's evidence; one open for reading only makes it a reader.
    let tied = match.runsOf(opens.filter((o) => o.writes !== false).map((o) => o.path));
    const reads = match.runsOf(opens.filter((o) => o.writes === false).map((o) => o.path));
    if (tied.size === 0) [evidence, tied] = ['command-line', runsNamed(argv, cwd, match)];
    if (tied.size === 0 && cwd !== null) [evidence, tied] = ['cwd', match.runsOf([cwd])];
    if (evidence !== 'open-files') for (const run of reads) tied.delete(run);
    if (tied.size === 0) continue;
    const stats = await readProcStats(pid, opts.procRoot);
    if (!stats || stats.ppid === opts.selfPid) continue;
    for (const run of tied) found.push({ pid, run, evidence, startTicks: stats.startTicks });
  }
  return found;
}
