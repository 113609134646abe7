// Export names on disk: an incident folder keeps its step, and a real export of hostile run and tag names writes every file.

import fc from 'fast-check';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { describe, expect, test } from 'vitest';
import { exportData } from '../../../src/core/export/export-run';
import { incidentFolderName } from '../../../src/core/export/incident';
import { MAX_NAME_SIZE, safeFileName } from '../../../src/shared/file-names';
import { hostileName, invalidBecause } from '../../helpers/file-name-rules';
import { tempDirs } from '../../helpers/temp-dirs';

const tmp = tempDirs();

describe('incident folders', () => {
  test('an incident folder name keeps its step whatever the run name', () => {
    const name = incidentFolderName(
      { rule: 'kl-above-target', run: `${'学'.repeat(240)}/x.`, step: 123456 },
      '/r',
    );
    expect(invalidBecause(name)).toBeNull();
    expect(name.startsWith('incident-kl-above-target-学')).toBe(true);
    expect(name.endsWith('-step123456')).toBe(true);
    expect(MAX_NAME_SIZE - Buffer.byteLength(name)).toBeLessThan(3);
  });

  test('fuzz: any run name and step give a valid folder name ending in its step', () => {
    fc.assert(
      fc.property(hostileName, fc.integer({ min: 0, max: 2 ** 31 }), (run, step) => {
        const name = incidentFolderName({ rule: 'kl-above-target', run, step }, '/r');
        expect(invalidBecause(name)).toBeNull();
        expect(name.endsWith(`-step${step}`)).toBe(true);
      }),
      { seed: 23, numRuns: 2000 },
    );
  });
});

describe('a real export of hostile names', () => {
  test('a run named with 240 CJK characters and tags named CON, "reward." and with a bidi override: every file written', async () => {
    const root = tmp('rlwatch-names-src-');
    // A run name is its relative path: three folders of 80 CJK characters (240 bytes each, as long as ext4 allows).
    const parts = ['学', '習', '率'].map((c) => c.repeat(80));
    const runDir = join(root, ...parts);
    mkdirSync(runDir, { recursive: true });
    const tags = ['CON', 'reward.', 'kl\u202etxt.exe', 'aux.json', '報酬'.repeat(120), 'policy/entropy '];
    const rows = Array.from({ length: 20 }, (_, i) => [i, ...tags.map((_, k) => i * 0.1 + k)].join(','));
    writeFileSync(
      join(runDir, 'metrics.csv'),
      `step,${tags.map((t) => JSON.stringify(t)).join(',')}\n${rows.join('\n')}\n`,
    );
    // A second run named `comparisons` must not land in the comparisons folder.
    mkdirSync(join(root, 'comparisons'));
    writeFileSync(join(root, 'comparisons', 'metrics.csv'), `step,CON\n1,1\n2,2\n`);

    const out = tmp('rlwatch-names-out-');
    const report = await exportData(root, {
      out,
      csv: true,
      json: true,
      png: true,
      figure: { width: 400, height: 240 },
    });
    expect(report.failed).toEqual([]);
    expect(report.runs).toContain(parts.join('/'));
    const files = readdirSync(out, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => relative(out, join(e.parentPath, e.name)));
    expect(files.sort()).toEqual(report.written.map((w) => relative(out, w.path)).sort());
    // The CJK run: its CSVs, JSON, figures of each tag; each path component valid everywhere.
    const cjkDir = safeFileName(parts.join('/'));
    const ofCjk = files.filter((f) => f.split(sep)[0] === cjkDir);
    expect(ofCjk.length).toBeGreaterThanOrEqual(3 + tags.length);
    for (const f of files) for (const part of f.split(sep)) expect(invalidBecause(part), f).toBeNull();
    expect(files).toContain(join(cjkDir, 'figures', 'CON_.png'));
    expect(files).toContain(join(cjkDir, 'figures', 'reward_.png'));
    expect(files).toContain(join(cjkDir, 'figures', 'kl_txt.exe.png'));
    expect(files).toContain(join(cjkDir, 'figures', 'aux_.json.png'));
    expect(files.some((f) => basename(f).startsWith('報酬'))).toBe(true);
    expect(files).toContain(join('comparisons-2', 'metrics_long.csv'));
  });
});
