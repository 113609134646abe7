// Fuzzes the W&B reader (framing, CRC, protobuf, JSON values) and the config.yaml parser.

import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseWandbConfigYaml } from '../../../src/core/wandb/config-yaml';
import { decodeRecord } from '../../../src/core/wandb/records';
import { checkInput, fuzz } from '../readers/fuzz-harness';
import { fixture } from '../readers/helpers';
import { frameLog, rec } from './wandb-log-writer';

describe('W&B fuzzing', () => {
  it('.wandb reader: data or typed errors on 100k mutated/truncated inputs', async () => {
    const seeds = [
      Uint8Array.from(readFileSync(fixture('wandb/wandb__wandb/leet-wire/bad-crc.wandb'))),
      frameLog([
        rec.run('r', 1_700_000_000),
        rec.history([
          ['_step', '1'],
          ['a', 'NaN'],
          ['n', '{"k": 2}'],
        ]),
        rec.stats(1_700_000_001, [['cpu', '3']]),
        rec.exit(1),
      ]),
    ];
    expect(await fuzz('wandb', seeds, 10_000, 9)).toBe(100_000);
    // 100k inputs: ≈ 8 s alone, 32 s beside CI's other lanes (past the default 30 s once).
  }, 120_000);

  it('.wandb reader: mutated records framed with valid CRCs reach the decoder (20k inputs)', async () => {
    const records = [
      rec.run('r', 1),
      rec.history([
        ['_step', '1'],
        ['a', '2.5'],
      ]),
      rec.summary([['a', '1']]),
      rec.stats(5, [['gpu', '9']]),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: records.length - 1 }),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        async (i, at, byte) => {
          const mutated = records.map((r, k) => {
            if (k !== i || r.length === 0) return r;
            const b = r.slice();
            b[at % b.length] = byte;
            return b;
          });
          await checkInput('wandb', frameLog(mutated));
        },
      ),
      { numRuns: 20_000, seed: 11 },
    );
  });

  it('record decoder: never throws on 100k random protobuf-ish byte strings', () => {
    let n = 0;
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        const d = decodeRecord(b);
        if (!d.ok) expect(typeof d.message).toBe('string');
        n++;
      }),
      { numRuns: 100_000, seed: 7 },
    );
    expect(n).toBe(100_000);
  });

  it('config.yaml parser: never throws on 5k mutated documents', async () => {
    const seed = readFileSync(
      fixture('wandb/480284856__RLHF_Training/run-20230420_073822-clnzftry/files/config.yaml'),
      'utf8',
    );
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: seed.length }), fc.string({ maxLength: 8 }), async (at, ins) => {
        const out = await parseWandbConfigYaml(seed.slice(0, at) + ins + seed.slice(at));
        expect(typeof out.ok).toBe('boolean');
        expect(typeof out).toBe('object');
      }),
      { numRuns: 5_000, seed: 3 },
    );
  });
});
