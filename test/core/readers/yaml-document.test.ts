// The bounded YAML reader: alias bombs and oversized files are typed errors, aliases copy their anchor, the loop breathes.

import { describe, expect, test } from 'vitest';
import { parseRunMeta } from '../../../src/core/mlflow/run-meta';
import { MAX_YAML_BYTES, parseYaml, parseYamlSliced } from '../../../src/core/readers/yaml-document';

/** A list of `n` zeros anchored once and aliased `aliases` times: n × aliases values once expanded. */
function aliasBomb(n: number, aliases: number): string {
  return `a: &a [${Array(n).fill('0').join(',')}]\nb: [${Array(aliases).fill('*a').join(',')}]\n`;
}

/** A plain, legal YAML mapping of about `bytes` bytes (one key a line). */
function plainMapping(bytes: number): string {
  const lines: string[] = [];
  for (let i = 0, n = 0; n < bytes; i++) {
    const line = `key_${i}: ${i * 0.5}\n`;
    lines.push(line);
    n += line.length;
  }
  return lines.join('');
}

describe('parseYaml', () => {
  test('a list anchored once and aliased 999 times is a typed decode error, not 20M copied values', () => {
    const source = aliasBomb(20_000, 999);
    expect(source.length).toBeLessThan(MAX_YAML_BYTES);
    const got = parseYaml(source);
    expect(got).toMatchObject({ ok: false, kind: 'decode' });
    expect(!got.ok && got.message).toMatch(/^config\.yaml: too many aliased nodes/);
    // As an MLflow meta.yaml: within its smaller cap, the same typed error; past it, refused before any parse.
    expect(parseRunMeta(`run_uuid: x\nexperiment_id: '0'\n${aliasBomb(5_000, 999)}`)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^meta\.yaml: too many aliased nodes/),
    });
    expect(parseRunMeta(`run_uuid: x\nexperiment_id: '0'\n${aliasBomb(20_000, 999)}`)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^meta\.yaml over \d+ bytes$/),
    });
  });

  test('aliases of aliases (a billion laughs) and a chain of them nesting without end are typed decode errors', () => {
    const laughs = ['l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++)
      laughs.push(
        `l${i}: &l${i} [${Array(10)
          .fill(`*l${i - 1}`)
          .join(', ')}]`,
      );
    expect(parseYaml(laughs.join('\n'))).toMatchObject({
      ok: false,
      kind: 'decode',
      message: expect.stringMatching(/too many aliased nodes/),
    });
    const chain = ['c0: &c0 [1]'];
    for (let i = 1; i < 400; i++) chain.push(`c${i}: &c${i} [*c${i - 1}]`);
    expect(parseYaml(chain.join('\n'))).toMatchObject({
      ok: false,
      kind: 'decode',
      message: expect.stringMatching(/nested deeper than \d+ levels/),
    });
  });

  test('an alias is a copy of the last node before it with that anchor; an alias inside its own anchor is an error', () => {
    const got = parseYaml(
      [
        'base: &opt {lr: 0.001, betas: [0.9, 0.999]}',
        'actor: *opt',
        'critic: *opt',
        'inner: &x {k: &y 1}',
        'later: &y 2',
        'copy: *x',
        'last: *y',
        'seq: &s [a, b]',
        '*s : keyed by a list',
      ].join('\n'),
    );
    expect(got.ok).toBe(true);
    const doc = (got as { value: Record<string, unknown> }).value;
    expect(doc['actor']).toEqual({ lr: 0.001, betas: [0.9, 0.999] });
    expect(doc['critic']).toEqual(doc['actor']);
    // Copies, not one shared object: changing one leaves the others.
    expect(doc['critic']).not.toBe(doc['actor']);
    expect(doc['base']).not.toBe(doc['actor']);
    // `*y` inside the copy of `*x` is the `&y` before `&x`, not the later one.
    expect(doc['copy']).toEqual({ k: 1 });
    expect(doc['last']).toBe(2);
    expect(doc['["a","b"]']).toBe('keyed by a list');
    expect(parseYaml('a: &a [1, *a]\n')).toMatchObject({
      ok: false,
      kind: 'decode',
      message: expect.stringMatching(/inside its own anchor/),
    });
    expect(parseYaml('a: *nowhere\n')).toMatchObject({ ok: false, kind: 'decode' });
    expect(parseYaml('a: 1\n---\nb: 2\n')).toMatchObject({ ok: false, kind: 'decode' });
    expect(parseYaml('')).toEqual({ ok: true, value: null });
  });

  test('a legal mapping past MAX_YAML_BYTES is a typed too-large error, one just under it parses', () => {
    // 300 kB of plain keys: under the 4 MB the reader used to allow, over what any real config needs.
    const over = plainMapping(300_000);
    expect(parseYaml(over)).toEqual({
      ok: false,
      kind: 'too-large',
      message: `config.yaml over ${MAX_YAML_BYTES} bytes`,
    });
    const under = plainMapping(MAX_YAML_BYTES - 100);
    const got = parseYaml(under);
    expect(got.ok).toBe(true);
    expect((got as { value: Record<string, unknown> }).value['key_1']).toBe(0.5);
    // The most values a plain document holds a byte (`[:,:,…]`: three for two bytes) are within the values bound.
    const dense = parseYaml(
      `[${Array(MAX_YAML_BYTES / 2 - 1)
        .fill(':')
        .join(',')}]`,
    );
    expect(dense.ok && (dense.value as unknown[]).length).toBe(MAX_YAML_BYTES / 2 - 1);
    // An MLflow meta.yaml is a few hundred bytes: one of 100 kB is refused before it is parsed.
    expect(parseRunMeta(`run_uuid: x\nexperiment_id: '0'\n${plainMapping(100_000)}`)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^meta\.yaml over/),
    });
  });
});

describe('parseYamlSliced', () => {
  test('hands the event loop back while it parses a large config, with the same result as in one piece', async () => {
    const source = plainMapping(MAX_YAML_BYTES - 100);
    let ranMeanwhile = false;
    setImmediate(() => (ranMeanwhile = true));
    const got = await parseYamlSliced(source);
    expect(ranMeanwhile).toBe(true);
    expect(got).toEqual(parseYaml(source));
    expect(await parseYamlSliced(aliasBomb(20_000, 999))).toMatchObject({ ok: false, kind: 'decode' });
  });
});
