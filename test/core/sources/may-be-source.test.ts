// Which written files could be a source (a write to one that cannot walks no folder again, #36).
import { describe, expect, it } from 'vitest';
import { mayBeSource } from '../../../src/core/sources/sniff';

describe('mayBeSource', () => {
  it('a log or text file cannot; a name formatByName takes or sniffs can; anything under an MLflow metrics folder can', () => {
    expect(mayBeSource('run/stdout.log')).toBe(false);
    expect(mayBeSource('run/notes.txt')).toBe(false);
    expect(mayBeSource('run/config.json')).toBe(false);
    expect(mayBeSource('run/events.out.tfevents.1.host')).toBe(true);
    expect(mayBeSource('run/eval.csv')).toBe(true);
    expect(mayBeSource('run/results.json')).toBe(true);
    expect(mayBeSource('mlruns/0/abc/metrics/loss')).toBe(true);
    expect(mayBeSource('mlruns/0/abc/metrics/train/loss')).toBe(true);
    expect(mayBeSource('mlruns\\0\\abc\\metrics\\loss')).toBe(true);
    expect(mayBeSource('mlruns/0/abc/params/lr')).toBe(false);
  });
});
