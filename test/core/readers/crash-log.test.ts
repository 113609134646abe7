// A log beside a stopped run that ends in a Python traceback: its last line, read safely (issue 34 §2).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CRASH_LOG_TAIL_BYTES, findCrashLog, tracebackEnd } from '../../../src/core/readers/crash-log';

const TB = (last: string): string =>
  `Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n    main()\n${last}\n`;

describe('tracebackEnd', () => {
  it('the exception line of the last traceback the text ends in', () => {
    expect(tracebackEnd('step 3\n' + TB('RuntimeError: CUDA out of memory'))).toBe(
      'RuntimeError: CUDA out of memory',
    );
    expect(
      tracebackEnd(TB('ValueError: a') + '\nDuring handling…\n\n' + TB('torch.OutOfMemoryError: b')),
    ).toBe('torch.OutOfMemoryError: b');
    expect(tracebackEnd(TB('KeyboardInterrupt'))).toBe('KeyboardInterrupt');
  });

  it('torchrun rank prefixes are dropped; a few lines after it (wandb’s summary) still count', () => {
    const ranked = TB('RuntimeError: NCCL timeout')
      .split('\n')
      .map((l) => (l === '' ? l : `[rank0]: ${l}`))
      .join('\n');
    expect(tracebackEnd(ranked + 'wandb: Synced 5 W&B files\n')).toBe('RuntimeError: NCCL timeout');
  });

  it('no traceback, or one the training went on after, is no crash', () => {
    expect(tracebackEnd('step 1\nstep 2\n')).toBeNull();
    const after = Array.from({ length: 100 }, (_, i) => `step ${i}`).join('\n');
    expect(tracebackEnd(TB('ValueError: retried') + after)).toBeNull();
  });

  it('control characters in the line are escaped, a long line is cut', () => {
    expect(tracebackEnd(TB('ValueError: \u001b]0;pwned\u0007 x'))).toBe('ValueError: \\e]0;pwned\\x07 x');
    expect(tracebackEnd(TB('ValueError: ' + 'x'.repeat(1000)))!.length).toBeLessThan(320);
  });
});

describe('findCrashLog', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const NOW = 1_700_000_000_000;
  const folder = (): { root: string; run: string } => {
    const root = mkdtempSync(join(tmpdir(), 'rlwatch-crashlog-'));
    dirs.push(root);
    mkdirSync(join(root, 'run'));
    return { root, run: join(root, 'run') };
  };
  const put = (path: string, text: string, at = NOW): void => {
    writeFileSync(path, text);
    utimesSync(path, at / 1000, at / 1000);
  };

  it('reads train.log in the run folder and nohup.out beside it; the newest near the last write wins', async () => {
    const { root, run } = folder();
    put(join(root, 'nohup.out'), TB('ValueError: older'), NOW - 60_000);
    put(join(run, 'train.log'), TB('RuntimeError: newer'), NOW + 5_000);
    put(join(run, 'notes.txt'), TB('ValueError: not a log name'), NOW + 9_000);
    expect(await findCrashLog(run, NOW, 300_000)).toMatchObject({
      file: 'train.log',
      line: 'RuntimeError: newer',
    });
  });

  it('a log written far from the last write, or a link named like a log, is not read', async () => {
    const { root, run } = folder();
    put(join(run, 'stderr'), TB('ValueError: old run'), NOW - 3600_000);
    const outside = join(root, 'elsewhere.txt');
    put(outside, TB('ValueError: through a link'));
    symlinkSync(outside, join(run, 'run.err'));
    expect(await findCrashLog(run, NOW, 300_000)).toBeNull();
  });

  it('only the log’s last 64 KiB is read: a traceback at the end of a large log is found', async () => {
    const { run } = folder();
    put(join(run, 'train.log'), 'x'.repeat(3 * CRASH_LOG_TAIL_BYTES) + '\n' + TB('RuntimeError: at the end'));
    expect((await findCrashLog(run, NOW, 300_000))?.line).toBe('RuntimeError: at the end');
  });
});
