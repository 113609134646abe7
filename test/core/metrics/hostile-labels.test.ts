// /metrics with hostile run, tag, alert and host names: no raw control or bidi character, valid and distinct series.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MetricsExposition } from '../../../src/core/metrics/exposition';
import { boundLabel } from '../../../src/core/metrics/label-bounds';
import type { LastPoint, MetricsSource } from '../../../src/core/metrics/metrics-source';
import type { AlertInfo, RunInfo } from '../../../src/shared/domain';
import type { SystemSnapshot } from '../../../src/shared/system-types';
import { parseExposition, type Sample } from './exposition-text';

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const PROMTOOL = '/usr/bin/promtool';

/** A source of runs with one point per tag and, for each run, one active alert quoting its tag. */
function sourceOf(runs: Map<string, string[]>): MetricsSource {
  const infos = [...runs].map(
    ([run, tags]) =>
      ({
        run,
        tags,
        lastEventAt: 1e12,
        fileWrittenAt: 1e12,
        progress: null,
        restarts: 0,
        stalled: false,
        loaded: true,
        sources: [],
      }) as unknown as RunInfo,
  );
  const alerts = [...runs].map(
    ([run, tags]) =>
      ({
        id: JSON.stringify([run, 'kl-above-target', tags[0] ?? null]),
        run,
        rule: 'kl-above-target',
        severity: 'warning',
        tag: tags[0] ?? null,
        value: 0.5,
        message: `${tags[0]} = 0.5 above target_kl`,
        advice: 'Lower the learning rate.',
        active: true,
      }) as unknown as AlertInfo,
  );
  return {
    runs: () => infos,
    lastPoints: (run) =>
      new Map<string, LastPoint>(
        (runs.get(run) ?? []).map((t) => [t, { count: 1, lastStep: 1, lastWallTime: 1e9, lastValue: 0.5 }]),
      ),
    activeAlerts: () => alerts,
    thresholdValues: () => ({ target_kl: 0.02 }),
    // A GPU whose name and ids came from a hostile driver answer, and a process of each run.
    latestSystemSample: () =>
      ({
        t: Date.now(),
        cpuPct: 10,
        memPct: null,
        memUsedMiB: null,
        memTotalMiB: null,
        gpus: [
          {
            index: 0,
            name: 'H100\u001b[2J',
            uuid: 'GPU-\u202e1',
            pciBusId: '0\u0007',
            utilizationGpuPct: 50,
          },
        ],
        trainingProcesses: [...runs.keys()].map((run) => ({ run, processes: [], cpuPct: 5, rssMiB: null })),
      }) as unknown as SystemSnapshot,
  };
}

async function scrape(
  runs: Map<string, string[]>,
  hostname = 'node-1',
): Promise<{ body: string; all: Sample[] }> {
  const { body } = await new MetricsExposition(sourceOf(runs), { hostname }).scrape();
  return { body, all: parseExposition(body) };
}

/** Lines holding a character a terminal would act on (the body's own line ends are not in the lines). */
const unsafeLines = (body: string): string[] => body.split('\n').filter((l) => UNSAFE.test(l));

/** Label sets written more than once in one family: Prometheus keeps one of two such series. */
function duplicateSeries(all: Sample[]): string[] {
  const seen = new Set<string>();
  const dup: string[] = [];
  for (const s of all) {
    const key = JSON.stringify([s.name, Object.entries(s.labels).sort()]);
    if (seen.has(key)) dup.push(key);
    seen.add(key);
  }
  return dup;
}

describe('label values from files', () => {
  test('ESC, BEL and bidi overrides are written as their visible escapes, tagged with a hash; plain names unchanged', () => {
    expect(boundLabel('ppo/run-1')).toBe('ppo/run-1');
    expect(boundLabel('学習率 🚀')).toBe('学習率 🚀');
    expect(boundLabel('run\u001b[2J')).toMatch(/^run\\e\[2J#[0-9a-f]{8}$/);
    expect(boundLabel('bell\u0007')).toMatch(/^bell\\x07#[0-9a-f]{8}$/);
    expect(boundLabel('kl\u202egpj')).toMatch(/^kl\\u202egpj#[0-9a-f]{8}$/);
    // Two names that differ only in a control character, or in being its escape, stay two series.
    const forms = ['a\u202eb', 'a\u2066b', 'a\\u202eb', 'a\u0000b', 'a\\x00b'];
    expect(new Set(forms.map((f) => boundLabel(f))).size).toBe(forms.length);
    // Long and escaped: cut, still bounded, still distinct.
    const long = boundLabel('\u001b'.repeat(1000));
    expect(long.length).toBeLessThanOrEqual(256);
    expect(long).toMatch(/^(\\e)+\\?…#[0-9a-f]{8}$/);
  });

  test('a scrape of hostile names carries no raw control or bidi character and stays valid', async () => {
    const evilRun = 'evil\u001b]0;pwned\u0007/run\r\n';
    const evilTag = 'kl\u202egpj.exe\u009b2J';
    const { body, all } = await scrape(new Map([[evilRun, [evilTag, 'reward']]]), 'box\u0007');
    expect(unsafeLines(body)).toEqual([]);
    const scalar = all.filter((s) => s.name === 'rlwatch_scalar');
    expect(scalar).toHaveLength(2);
    // The newline is the format's own `\n` escape, read back as a newline (the line stays one line).
    expect(scalar[0]!.labels.run).toMatch(/^evil\\e\]0;pwned\\x07\/run\\r\n#[0-9a-f]{8}$/);
    expect(scalar.map((s) => s.labels.tag)).toContain(boundLabel(evilTag));
    // prom-client's families (per run, alerts, the host label) get the same form.
    const status = all.find((s) => s.name === 'rlwatch_run_status')!;
    expect(status.labels.run).toBe(scalar[0]!.labels.run);
    const info = all.find((s) => s.name === 'rlwatch_alert_info')!;
    expect(info.labels.tag).toBe(boundLabel(evilTag));
    const gpu = all.find((s) => s.name === 'rlwatch_gpu_utilization_ratio')!;
    expect(gpu.labels).toMatchObject({
      modelName: boundLabel('H100\u001b[2J'),
      Hostname: boundLabel('box\u0007'),
    });
    expect(gpu.labels.modelName).toMatch(/^H100\\e\[2J#/);
    const proc = all.find((s) => s.name === 'rlwatch_training_process_cpu_ratio')!;
    expect(proc.labels.run).toBe(scalar[0]!.labels.run);
    expect(info.labels.message).toMatch(/^kl\\u202egpj\.exe\\x9b2J = 0\.5/);
    expect(duplicateSeries(all)).toEqual([]);
  });

  test.skipIf(!existsSync(PROMTOOL))('promtool check metrics parses a hostile scrape', async () => {
    const { body } = await scrape(
      new Map([
        ['evil\u001b[31m\u202e', ['kl\u0007', 'a"b\\c\nd']],
        ['ok', ['reward']],
      ]),
      'box\u001b',
    );
    const r = spawnSync(PROMTOOL, ['check', 'metrics'], { input: body, encoding: 'utf8' });
    // Lint notes (naming advice) may be printed; a parse error may not.
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/pars(e|ing) error|error while linting/i);
  });

  test('fuzz: any run and tag names give a scrape with no unsafe character and one series per run and tag', async () => {
    const name = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({
        unit: fc.constantFrom(
          'a',
          '\\',
          '"',
          '\n',
          '\r',
          '\u001b',
          '\u0007',
          '\u009b',
          '\u202e',
          '\u2069',
          'e',
          'x07',
          '学',
          '#',
        ),
        maxLength: 20,
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(name, fc.uniqueArray(name, { minLength: 1, maxLength: 4 })), {
          selector: ([r]) => r,
          maxLength: 6,
        }),
        async (pairs) => {
          const runs = new Map(pairs);
          const { body, all } = await scrape(runs);
          expect(unsafeLines(body)).toEqual([]);
          const tags = [...runs.values()].reduce((n, t) => n + t.length, 0);
          expect(all.filter((s) => s.name === 'rlwatch_scalar')).toHaveLength(tags);
          expect(duplicateSeries(all)).toEqual([]);
        },
      ),
      { seed: 23, numRuns: 300 },
    );
  });
});
