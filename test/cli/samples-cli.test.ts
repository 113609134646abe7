// `inspect` counts samples per source (JSON and text); `export --samples` writes them as JSONL and spreadsheet-safe CSV.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runExport } from '../../src/cli/export-command';
import { formatReport } from '../../src/cli/inspect-command';
import { UsageError } from '../../src/cli/usage';
import { exportSamples } from '../../src/cli/samples-export';
import { inspectPath } from '../../src/core/inspect';
import { samplesCsvHeader, samplesCsvLines } from '../../src/shared/samples-text';
import { writeCompletionsJsonl, writeWandbTables } from '../helpers/samples-fixtures';

const tmp = mkdtempSync(join(tmpdir(), 'rlwatch-samples-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('samples on the command line', () => {
  const root = join(tmp, 'runs');
  writeCompletionsJsonl(join(root, 'grpo'), 20);
  writeWandbTables(join(root, 'wandb'), [5, 10]);

  test('inspect counts each source’s samples', async () => {
    const report = await inspectPath(root);
    const grpo = report.runs.find((r) => r.run === 'grpo')!;
    expect(grpo.sources).toMatchObject([
      {
        file: 'completions.jsonl',
        format: 'completions',
        samples: [{ source: 'completions.jsonl', rows: 36, dropped: 0, steps: 3 }],
      },
    ]);
    const wb = report.runs.find((r) => r.run.startsWith('wandb/'))!;
    expect(wb.sources[0]!.samples).toEqual([{ source: 'completions', rows: 14, dropped: 0, steps: 2 }]);
    expect(wb.scalars['train/loss']).toMatchObject({ count: 2 });
    const text = formatReport(report);
    expect(text).toContain('samples completions.jsonl: 36 over 3 step(s)');
    expect(text).toContain('samples completions: 14 over 2 step(s)');
  });

  test('export --samples: JSONL with every sample, CSV with a header and formula-looking text defused', async () => {
    const out = join(tmp, 'out');
    const r = await exportSamples(root, out);
    expect(r.failed).toEqual([]);
    expect(readdirSync(join(out, 'grpo', 'samples')).sort()).toEqual([
      'completions.jsonl.csv',
      'completions.jsonl.jsonl',
    ]);
    const lines = readFileSync(join(out, 'grpo', 'samples', 'completions.jsonl.jsonl'), 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines.length).toBe(36);
    const huge = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((o) => o.prompt === 'hostile huge')!;
    expect(huge).toMatchObject({ step: 20, truncated: true });
    const csv = readFileSync(join(out, 'grpo', 'samples', 'completions.jsonl.csv'), 'utf8');
    expect(csv.split('\n')[0]).toBe(
      'step,sample_index,prompt,completion,rewards/correctness_reward,rewards/format_reward,reward,advantage',
    );
    const wandbCsv = readFileSync(
      join(out, readdirSync(out).find((d) => d.startsWith('wandb'))!, 'samples', 'completions.csv'),
      'utf8',
    );
    expect(wandbCsv.split('\n').length).toBe(1 + 14 + 1);
    await expect(exportSamples(root, join(root, 'inside'))).rejects.toThrow(
      /is inside .*: rlwatch never writes into the folder it reads/,
    );
    // A link outside that leads inside is inside: nothing is written through it.
    const link = join(tmp, 'link-into-runs');
    symlinkSync(root, link);
    await expect(exportSamples(root, join(link, 'out'))).rejects.toThrow(
      /is inside .*: rlwatch never writes into the folder it reads/,
    );
    expect(existsSync(join(root, 'out'))).toBe(false);
  });

  test('the export command: --samples alone writes only samples; --samples with --watch is a usage error', async () => {
    const out = join(tmp, 'out-cmd');
    const write = process.stdout.write.bind(process.stdout);
    const errWrite = process.stderr.write.bind(process.stderr);
    process.stdout.write = () => true;
    process.stderr.write = () => true;
    try {
      expect(await runExport([root, '--out', out, '--samples', '--runs', '^grpo$'])).toBe(0);
    } finally {
      process.stdout.write = write;
      process.stderr.write = errWrite;
    }
    expect(readdirSync(out)).toEqual(['grpo']);
    expect(readdirSync(join(out, 'grpo'))).toEqual(['samples']);
    await expect(runExport([root, '--out', out, '--samples', '--watch'])).rejects.toThrow(UsageError);
  });

  test('CSV cells a spreadsheet would run are quoted text; numbers and commas stay exact', () => {
    const table = {
      columns: [
        { name: 'completion', kind: 'text' as const },
        { name: 'reward', kind: 'number' as const },
      ],
      rows: [
        { cells: ['=HYPERLINK("http://x")', -0.5], truncated: false },
        { cells: ['a, "b"\nc', null], truncated: false },
      ],
    };
    expect(
      samplesCsvHeader(['completion', 'reward']) +
        [...samplesCsvLines(table, 3, ['completion', 'reward'])].join(''),
    ).toBe(
      'step,sample_index,completion,reward\n' +
        '3,0,"\'=HYPERLINK(""http://x"")",-0.5\n' +
        '3,1,"a, ""b""\nc",\n',
    );
  });
});
