// Whether a log beside a stopped run (nohup.out, stderr, *.log, *.err) ends in a Python traceback, and its last line.

import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { escapeControls } from '../../shared/control-chars';

/** Only this much of a log's end is read. */
export const CRASH_LOG_TAIL_BYTES = 64 * 1024;
/** A traceback counts only when the log ends with it: at most this many non-empty lines may follow its last line
 * (a logger's shutdown notes, wandb's sync summary). */
const LINES_AFTER_MAX = 30;
/** The cited line is cut to this many characters. */
const LINE_MAX = 300;
/** Names of the logs a trainer's stderr usually goes to. */
const LOG_NAME = /^(?:nohup\.out|stderr(?:\.txt)?|.+\.(?:log|err))$/i;
/** The folder entries looked at (a folder of thousands of files is not scanned further). */
const ENTRIES_MAX = 2000;

/** A log that ends in a traceback: its name, the traceback's last line (controls escaped), its mtime. */
export interface CrashLog {
  file: string;
  line: string;
  mtimeMs: number;
}

const HEADER = 'Traceback (most recent call last):';
/** torchrun / accelerate prefix every line of a rank with `[rank0]:`. */
const RANK_PREFIX = /^\[(?:rank|default)\d+\]:\s?/;
/** An exception's last line: `RuntimeError: CUDA out of memory`, `torch.OutOfMemoryError: …`, `KeyboardInterrupt`. */
const EXCEPTION_LINE = /^[A-Za-z_][\w.]*(?::\s.*|:)?$/;

/** The last line of the traceback `text` ends in (its exception and message), null when it ends in none. */
export function tracebackEnd(text: string): string | null {
  const lines = text.split(/\r?\n/).map((l) => l.replace(RANK_PREFIX, ''));
  let header = -1;
  for (let i = lines.length - 1; i >= 0; i--)
    if (lines[i]!.trimEnd() === HEADER) {
      header = i;
      break;
    }
  if (header < 0) return null;
  // Frames are indented (`  File "…", line 3, in f` and their code); the first line that is not is the exception.
  let i = header + 1;
  while (i < lines.length && (lines[i]!.startsWith(' ') || lines[i]!.startsWith('\t') || lines[i] === ''))
    i++;
  const line = lines[i]?.trimEnd();
  if (line === undefined || !EXCEPTION_LINE.test(line)) return null;
  const after = lines.slice(i + 1).filter((l) => l.trim() !== '').length;
  if (after > LINES_AFTER_MAX) return null;
  const cut = line.length > LINE_MAX ? line.slice(0, LINE_MAX) + '…' : line;
  return escapeControls(cut);
}

/**
 * The end of one log, read without following a link (O_NOFOLLOW), only if it is a regular file whose mtime `wanted`
 * takes (a log written long before or after the run's last write is not read at all); null else.
 */
async function tailOf(
  path: string,
  wanted: (mtimeMs: number) => boolean,
): Promise<{ text: string; mtimeMs: number } | null> {
  let fh;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile() || !wanted(st.mtimeMs)) return null;
    const length = Math.min(st.size, CRASH_LOG_TAIL_BYTES);
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, st.size - length);
    return { text: buf.subarray(0, bytesRead).toString('utf8'), mtimeMs: st.mtimeMs };
  } catch {
    return null;
  } finally {
    await fh.close();
  }
}

/**
 * The newest log in the run folder `runDir` or its parent whose mtime lies within `windowMs` of `nearMs` (the run's
 * last write: an old traceback is no evidence about this run) and that ends in a traceback. Links are never
 * followed (a link named nohup.out is skipped), nothing is written, each log's last CRASH_LOG_TAIL_BYTES only.
 */
export async function findCrashLog(
  runDir: string,
  nearMs: number,
  windowMs: number,
): Promise<CrashLog | null> {
  const found: CrashLog[] = [];
  for (const dir of new Set([runDir, dirname(runDir)])) {
    let names: string[];
    try {
      names = (await readdir(dir, { withFileTypes: true }))
        .slice(0, ENTRIES_MAX)
        .filter((d) => d.isFile() && LOG_NAME.test(d.name))
        .map((d) => d.name);
    } catch {
      continue;
    }
    for (const name of names) {
      const tail = await tailOf(join(dir, name), (mtimeMs) => Math.abs(mtimeMs - nearMs) <= windowMs);
      if (tail === null) continue;
      const line = tracebackEnd(tail.text);
      if (line !== null)
        found.push({
          file: escapeControls(dir === runDir ? name : join('..', basename(name))),
          line,
          mtimeMs: tail.mtimeMs,
        });
    }
  }
  found.sort((a, b) => b.mtimeMs - a.mtimeMs);
  return found[0] ?? null;
}
