// `--job NAME [--node NAME]`: the identity an agent or serve gives its runs, refused as usage errors when unusable.

import { describe, expect, test } from 'vitest';
import { jobIdentity } from '../../src/cli/job-flags';
import { UsageError } from '../../src/cli/usage';
import { JOB_NAME_MAX } from '../../src/shared/job-types';

describe('--job and --node', () => {
  test('without --job there is no identity; the node defaults to the host name', () => {
    expect(jobIdentity({}, 'host-1')).toBeUndefined();
    expect(jobIdentity({ job: 'grpo-8n' }, 'host-1')).toEqual({ job: 'grpo-8n', node: 'host-1' });
    expect(jobIdentity({ job: 'grpo-8n', node: 'rank-3' }, 'host-1')).toEqual({
      job: 'grpo-8n',
      node: 'rank-3',
    });
  });

  test('--node alone, empty, too long or control-character names are usage errors that say which flag', () => {
    expect(() => jobIdentity({ node: 'n' })).toThrow(/give --job NAME too/);
    expect(() => jobIdentity({ job: '  ' })).toThrow(/--job is empty/);
    expect(() => jobIdentity({ job: 'x'.repeat(JOB_NAME_MAX + 1) })).toThrow(/--job is longer than 128/);
    expect(() => jobIdentity({ job: 'j', node: 'a\u001b[2J' })).toThrow(/--node holds control/);
    expect(() => jobIdentity({ job: 'j\u202e' })).toThrow(UsageError);
    // Any script is fine.
    expect(jobIdentity({ job: '学習-ジョブ', node: 'узел-1' })).toEqual({
      job: '学習-ジョブ',
      node: 'узел-1',
    });
  });
});
