// `inspect --table` as text fits the terminal: config columns fold away with a note, `--columns` chooses, and the
// status and worst active alert are columns.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runsTableOutput, worstAlerts } from '../../src/cli/runs-table-output';
import { UsageError } from '../../src/cli/usage';
import { inspectPath, type InspectReport } from '../../src/core/inspect';
import { EventFileWriter } from '../../src/core/tfevents/writer';
import { incidentAlias } from '../../src/shared/incident-alias';

/** 30 config keys that differ between the two runs: a table far wider than a terminal. */
const config = (i: number): Record<string, number> =>
  Object.fromEntries(
    Array.from({ length: 30 }, (_, k) => [`hyperparameter_${String(k).padStart(2, '0')}`, i * 100 + k]),
  );

describe('inspect --table text layout', () => {
  let root: string;
  let report: InspectReport;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'rlwatch-table-layout-'));
    for (const [i, run] of ['alpha', 'beta'].entries()) {
      const dir = join(root, run);
      mkdirSync(dir);
      writeFileSync(join(dir, 'config.json'), JSON.stringify(config(i)));
      const w = new EventFileWriter(dir, { wallTime: 1_700_000_000 });
      w.scalars(
        0,
        [
          { tag: 'reward', value: 1 },
          { tag: 'kl', value: 0.01 },
        ],
        'simple',
        1_700_000_000,
      );
      w.scalars(
        10,
        [
          { tag: 'reward', value: 2 },
          { tag: 'kl', value: 0.5 },
        ],
        'simple',
        1_700_000_010,
      );
      w.close();
    }
    report = await inspectPath(root);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const lines = (out: string): string[] => out.trimEnd().split('\n');

  test('at 120 columns every line fits and the folded config columns are counted', () => {
    const out = runsTableOutput(report, 'text', { layout: { width: 120, columns: null } });
    const table = lines(out).slice(1, 4);
    for (const l of table) expect(l.length).toBeLessThanOrEqual(120);
    const shown = (table[0]!.match(/hyperparameter_\d\d/g) ?? []).length;
    expect(shown).toBeLessThan(30);
    expect(out).toContain(`+${30 - shown} config columns`);
    expect(out).toMatch(/\(--columns to choose\)\n$/);
    expect(table[0]).toMatch(/^run\s+status\s/);
  });

  test('piped (no width) the whole table is printed, no note', () => {
    const out = runsTableOutput(report, 'text', { layout: { width: null, columns: null } });
    expect((lines(out)[1]!.match(/hyperparameter_\d\d/g) ?? []).length).toBe(30);
    expect(out).not.toContain('--columns to choose');
  });

  test('--columns chooses by id or label after the run name; an unknown name is a usage error naming it', () => {
    const out = runsTableOutput(report, 'text', {
      layout: { width: 120, columns: ['status', 'KL (last)', 'hyperparameter_29'] },
    });
    expect(lines(out)[1]!.split(/\s{2,}/)).toEqual(['run', 'status', 'KL (last)', 'hyperparameter_29']);
    expect(lines(out)[2]).toMatch(/^alpha\s+\S+\s+0\.5\s+29$/);
    expect(() => runsTableOutput(report, 'text', { layout: { width: 120, columns: ['nope'] } })).toThrow(
      UsageError,
    );
  });

  const W = '["alpha","reward-plateau","reward",5]';
  const A = '["alpha","kl-above-target","kl",10]';
  const B = '["beta","kl-above-target","kl",10]';

  test('the worst active alert (with its alias) is a column after the status: critical before warning, cleared ones not', () => {
    const alerts = worstAlerts([
      { id: W, run: 'alpha', rule: 'reward-plateau', severity: 'warning', active: true },
      { id: A, run: 'alpha', rule: 'kl-above-target', severity: 'critical', active: true },
      { id: B, run: 'beta', rule: 'kl-above-target', severity: 'critical', active: false },
    ]);
    const out = runsTableOutput(report, 'text', { alerts, layout: { width: 200, columns: null } });
    const [head, alpha, beta] = lines(out).slice(1, 4);
    expect(head).toMatch(/^run\s+status\s+worst alert\s/);
    expect(alpha).toContain(`critical kl-above-target ${incidentAlias(A)}`);
    expect(beta).not.toContain('kl-above-target');
    const json = JSON.parse(runsTableOutput(report, 'json', { alerts })) as {
      rows: { cells: Record<string, unknown> }[];
    };
    expect(json.rows.map((r) => r.cells.alert)).toEqual([
      `critical kl-above-target ${incidentAlias(A)}`,
      null,
    ]);
  });
});
