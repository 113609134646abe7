// report.md quotes text from files (config key paths, names, messages) as plain text: no markup, no HTML, no terminal escapes.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { codeSpan, incidentReport, mdText } from '../../../src/core/export/incident-report';
import type { AlertInfo } from '../../../src/shared/domain';

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const MARKUP = new Set('\\`*_{}[]<>()#+!|~&$');

/** The first character of `md` that Markdown would read as markup (not backslash-quoted), or null. */
function unquotedMarkup(md: string): string | null {
  for (let i = 0; i < md.length; i++) {
    const c = md[i]!;
    if (c === '\\') {
      // A quote of punctuation; before a letter (`\e`, `\n`: our visible escapes) a backslash is shown as it is.
      if (i + 1 < md.length && (MARKUP.has(md[i + 1]!) || '-=.'.includes(md[i + 1]!))) i++;
      else if (!/[enrtxu]/.test(md[i + 1] ?? '')) return `\\ at ${i}`;
      continue;
    }
    if (MARKUP.has(c)) return `${c} at ${i}`;
  }
  if (/^ *([-=](?![0-9])|\d+\.( |$))/.test(md)) return 'a list, rule or heading marker at the start';
  return null;
}

function alertOf(over: Partial<AlertInfo>): AlertInfo {
  return {
    id: '["r","kl-above-target","approx_kl"]',
    rule: 'kl-above-target',
    severity: 'warning',
    run: 'r',
    tag: 'approx_kl',
    tags: [],
    step: 10,
    wallTime: null,
    value: 0.5,
    statistic: null,
    message: 'm',
    advice: null,
    raisedAt: 0,
    acknowledged: false,
    snoozedUntil: null,
    active: true,
    clearedAt: null,
    clearedStep: null,
    clearedWallTime: null,
    ...over,
  };
}

const report = (alert: AlertInfo, configPath: string): string =>
  incidentReport({
    alert,
    wallTimeMs: 0,
    thresholds: { target_kl: { key: 'target_kl', value: 0.02, origin: 'run-config', configPath } } as never,
    advice: '',
    config: { [configPath]: 0.02 },
    system: null,
    window: { min: 0, max: 20, halfWidth: 10, runSteps: null },
    files: [],
  });

describe('Markdown text', () => {
  test('the threshold row quotes the config key path: no HTML, no table break, no escape sequence', () => {
    const path = 'ppo.<img src=x onerror=alert(1)>|[x](javascript:alert(1))\u001b[2J&#x202e;';
    const md = report(alertOf({ run: 'run\u001b]0;t\u0007', tag: 'kl\u202e' }), path);
    const row = md.split('\n').find((l) => l.startsWith('| Threshold |'))!;
    expect(row).toBe(
      '| Threshold | target_kl 0.02 (run config: ppo.\\<img src=x onerror=alert\\(1\\)\\>\\|\\[x\\]\\(javascript:alert\\(1\\)\\)\\e\\[2J\\&\\#x202e;) |',
    );
    // Every line of the report: no raw control or bidi character; the id's code span shows them escaped.
    expect(md.split('\n').filter((l) => UNSAFE.test(l))).toEqual([]);
    expect(md).toContain('| Alert id | `["r","kl-above-target","approx_kl"]` |');
    expect(codeSpan('["r\u001b","x"]')).toBe('`["r\\e","x"]`');
    expect(md).toContain('# KL above target: run\\e\\]0;t\\x07, step 10');
  });

  test('fuzz: any text is one line of plain text with no markup, HTML or control character left', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 260 }),
      fc.string({
        unit: fc.constantFrom(
          ...MARKUP,
          '\n',
          '\r',
          '\u001b',
          '\u0007',
          '\u202e',
          '-',
          '=',
          '1',
          '.',
          ' ',
          'a',
          'e',
          'x',
          'u',
        ),
        maxLength: 60,
      }),
    );
    fc.assert(
      fc.property(text, (s) => {
        const md = mdText(s);
        expect(UNSAFE.test(md)).toBe(false);
        expect(unquotedMarkup(md)).toBeNull();
      }),
      { seed: 23, numRuns: 5000 },
    );
  });

  test('plain names pass unchanged', () => {
    for (const s of ['approx_kl', 'ppo demo 3', '学習率', 'emoji 🚀', 'a-b', 'v1.2', '0.1', '-0.5', '1e-7']) {
      expect(mdText(s)).toBe(s.replace(/_/g, '\\_'));
    }
  });
});
