// The directly written text format: byte for byte what prom-client writes for the same samples, and read back whole.

import { Gauge, Registry } from 'prom-client';
import { describe, expect, test } from 'vitest';
import { escapeLabelValue, labelSet, sampleValue, TextGauge } from '../../../src/core/metrics/text-format';
import { parseExposition } from './exposition-text';

const NAMES = ['run', 'tag'] as const;
const ODD_VALUES = [NaN, Infinity, -Infinity, -0, 0, 1e21, -1e-7, 0.1 + 0.2, 42, 2 ** 53 + 2, 3.4e38, 5e-324];

/** A deterministic string of characters a label value may hold, the escaped ones often. */
function oddString(seed: number): string {
  const alphabet = [
    'a',
    'Z',
    '9',
    '/',
    '\\',
    '\n',
    '"',
    ' ',
    '{',
    '}',
    '=',
    ',',
    'é',
    '∑',
    '\u001b',
    '\t',
    '\r',
  ];
  let x = seed * 2654435761;
  let s = '';
  const n = 1 + (seed % 9);
  for (let i = 0; i < n; i++) {
    x = (x ^ (x >>> 13)) * 1274126177;
    s += alphabet[Math.abs(x) % alphabet.length];
  }
  return s;
}

/** prom-client's text for one gauge family holding these samples (the oracle). */
async function promClientText(
  name: string,
  help: string,
  samples: [string, string, number][],
): Promise<string> {
  const registry = new Registry();
  const g = new Gauge({ name, help, labelNames: [...NAMES], registers: [registry] });
  for (const [run, tag, v] of samples) g.set({ run, tag }, v);
  return registry.getSingleMetricAsString(name);
}

describe('text format', () => {
  test('a TextGauge writes what prom-client writes for the same samples', async () => {
    const samples: [string, string, number][] = [];
    for (let i = 0; i < 400; i++)
      samples.push([oddString(i % 7), `${oddString(i + 1000)}#${i}`, ODD_VALUES[i % ODD_VALUES.length]!]);
    const help = 'A help text with a \\ backslash,\na newline and "quotes".';
    const g = new TextGauge('rlwatch_test', help);
    for (const [run, tag, v] of samples) g.add(labelSet(NAMES, [run, tag]), v);
    expect(g.take()).toBe(await promClientText('rlwatch_test', help, samples));
  });

  test('an empty family is its HELP and TYPE lines, as prom-client writes it; take() lets the samples go', async () => {
    const g = new TextGauge('rlwatch_empty', 'Nothing yet.');
    expect(g.take()).toBe(await promClientText('rlwatch_empty', 'Nothing yet.', []));
    g.add(labelSet(NAMES, ['r', 't']), 1);
    expect(g.take()).toContain('rlwatch_empty{run="r",tag="t"} 1');
    expect(g.take()).toBe(await promClientText('rlwatch_empty', 'Nothing yet.', []));
  });

  test('label values read back as written, whatever they hold', () => {
    const g = new TextGauge('rlwatch_back', 'Read back.');
    const written: [string, string, number][] = [];
    for (let i = 0; i < 300; i++) {
      written.push([oddString(i), oddString(i + 7), i]);
      g.add(labelSet(NAMES, [oddString(i), oddString(i + 7)]), i);
    }
    const read = parseExposition(`${g.take()}\n`).map((s) => [s.labels.run, s.labels.tag, s.value]);
    expect(read).toEqual(written);
  });

  test('escapes: backslash first, then newline and quote; values as Prometheus reads them', () => {
    expect(escapeLabelValue('a\\n"\n')).toBe('a\\\\n\\"\\n');
    expect(escapeLabelValue('plain/tag_1')).toBe('plain/tag_1');
    expect(ODD_VALUES.map(sampleValue)).toEqual([
      'Nan',
      '+Inf',
      '-Inf',
      '0',
      '0',
      '1e+21',
      '-1e-7',
      '0.30000000000000004',
      '42',
      '9007199254740994',
      '3.4e+38',
      '5e-324',
    ]);
  });
});
