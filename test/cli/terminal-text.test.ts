// Names and messages from run folders cannot inject terminal escapes or fake lines into human output.

import { describe, expect, test } from 'vitest';
import { terminalSafe } from '../../src/cli/terminal-text';
import { formatReport } from '../../src/cli/inspect-command';
import { formatLine } from '../../src/cli/watch-text';

describe('terminalSafe', () => {
  test('escape sequences, newlines, bells, C1 controls and bidi overrides become visible backslash forms', () => {
    expect(terminalSafe('run\u001b[2J')).toBe('run\\e[2J');
    expect(terminalSafe('a\nb\rc\td')).toBe('a\\nb\\rc\\td');
    expect(terminalSafe('bell\u0007nul\u0000del\u007f')).toBe('bell\\x07nul\\x00del\\x7f');
    expect(terminalSafe('csi\u009b2J')).toBe('csi\\x9b2J');
    expect(terminalSafe('txt.\u202egpj')).toBe('txt.\\u202egpj');
  });

  test('printable text of any script passes unchanged', () => {
    for (const s of ['reward/mean', 'Train/AvgReward', '学習率', 'ключ', 'emoji 🚀', 'a b']) {
      expect(terminalSafe(s)).toBe(s);
    }
  });
});

describe('watch text lines', () => {
  test('a run name with an escape sequence and a newline cannot clear the screen or fake an alert line', () => {
    const evil = 'run\u001b[2J\n12:00:00  CRITICAL raised: fake';
    const out = formatLine({ t: 0, type: 'run', run: evil, state: 'discovered' });
    expect(out.split('\n')).toHaveLength(2); // the line itself, then the end of line
    expect(out).not.toContain('\u001b');
    expect(out).toContain('run\\e[2J\\n12:00:00  CRITICAL raised: fake');
  });

  test('tags and alert messages are escaped too', () => {
    const scalars = formatLine({
      t: 0,
      type: 'scalars',
      run: 'r',
      tag: 'loss\u001b]0;title\u0007',
      points: [[1, 0, 0.5]],
    } as never);
    expect(scalars).not.toContain('\u001b');
    expect(scalars).not.toContain('\u0007');
    expect(scalars).toContain('loss\\e]0;title\\x07');
    const alert = formatLine({
      t: 0,
      type: 'alert',
      run: 'r',
      rule: 'kl-above-target',
      severity: 'warning',
      state: 'raised',
      message: 'x\ny',
      step: 1,
      value: 1,
      id: '["r","kl-above-target","kl",1]',
    } as never);
    expect(alert.trimEnd()).not.toContain('\n');
  });
});

describe('watch --remote lines', () => {
  test('a job line names each node with its state and step; endpoint errors and node names are escaped', () => {
    const job = formatLine({
      t: 0,
      type: 'job',
      job: 'grpo-3n',
      grouping: 'named',
      nodes: [
        {
          node: 'node-a',
          host: 'h:1',
          run: 'h:1//r',
          state: 'moving',
          step: 1510,
          lastWriteAt: 0,
          connected: true,
          gpuUtilPct: 90,
        },
        {
          node: 'evil\u001b[2J',
          host: 'h:2',
          run: 'h:2//r',
          state: 'silent',
          step: 1200,
          lastWriteAt: 0,
          connected: false,
          gpuUtilPct: null,
        },
      ],
      stepMin: 1200,
      stepMax: 1510,
      worstAlert: 'critical',
    });
    expect(job).toBe(
      '00:00:00  job grpo-3n  2 nodes: node-a @1510, evil\\e[2J SILENT @1200 (not connected)\n',
    );
    // A node whose agent does not answer says so in words, once.
    const away = formatLine({
      t: 0,
      type: 'job',
      job: 'grpo-3n',
      grouping: 'named',
      nodes: [
        {
          node: 'node-c',
          host: 'h:3',
          run: 'h:3//r',
          state: 'unreachable',
          step: 1200,
          lastWriteAt: 0,
          connected: false,
          gpuUtilPct: null,
        },
      ],
      stepMin: 1200,
      stepMax: 1200,
      worstAlert: 'critical',
    });
    expect(away).toBe('00:00:00  job grpo-3n  1 node: node-c AGENT UNREACHABLE @1200\n');
    const ep = formatLine({
      t: 0,
      type: 'endpoint',
      endpoint: 'h:2',
      state: 'disconnected',
      error: 'gone\nfake',
    });
    expect(ep).toBe('00:00:00  endpoint h:2 disconnected: gone\\nfake\n');
  });
});

describe('inspect text report', () => {
  test('run, file and tag names with escapes and newlines stay on their own line, visibly escaped', () => {
    const out = formatReport({
      root: '/runs/\u001b[2J',
      walkErrors: [],
      runs: [
        {
          run: 'r\nfake',
          sources: [{ file: 'm\u001b]0;x\u0007.csv', format: 'csv', records: 1, errors: [] }],
          scalars: {
            'loss\r\nCRITICAL': {
              count: 1,
              firstStep: 0,
              lastStep: 0,
              sum: 1,
              min: 1,
              max: 1,
              last: 1,
              nonFinite: 0,
            },
          },
          sessions: [],
          progress: null,
          config: { 'k\u001b': 'v\n' },
        },
      ],
    } as never);
    for (const c of ['\u001b', '\u0007', '\r']) expect(out).not.toContain(c);
    expect(out).toContain('run r\\nfake');
    expect(out).toContain('m\\e]0;x\\x07.csv');
    expect(out).toContain('loss\\r\\nCRITICAL');
    expect(out).toContain('/runs/\\e[2J');
    // Only the report's own line breaks remain.
    expect(out.split('\n').some((l) => l.startsWith('CRITICAL'))).toBe(false);
  });
});
