// The run list's job entries (pure): summary and problem lines, the dot, node lines, the overlay set, the filter.

import { describe, expect, test } from 'vitest';
import {
  filterJobs,
  jobProblems,
  jobRuns,
  jobStatus,
  jobSummary,
  NODE_STATE_LABELS,
  nodeProgress,
  nodeWhere,
  showsJob,
  stepRange,
} from '../../../src/renderer/src/lib/job-rows';
import type { JobInfo, JobNode, JobNodeState } from '../../../src/shared/job-types';

const NOW = 1_800_000_000_000;

const node = (name: string, over: Partial<JobNode> = {}): JobNode => ({
  node: name,
  host: `10.0.0.${name.length}:7071`,
  run: `10.0.0.${name.length}:7071//grpo`,
  step: 1200,
  lastWriteAt: NOW - 2000,
  connected: true,
  gpuUtilPct: 87.4,
  state: 'moving',
  worstAlert: null,
  ...over,
});

const job = (nodes: JobNode[], over: Partial<JobInfo> = {}): JobInfo => ({
  name: 'grpo-8n',
  grouping: 'named',
  nodes,
  stepMin: 1200,
  stepMax: 1510,
  worstAlert: null,
  ...over,
});

describe('job entry', () => {
  test('the summary counts nodes and gives the step range of the unfinished ones', () => {
    expect(jobSummary(job([node('a'), node('bb'), node('ccc')]))).toBe('3 nodes · steps 1200–1510');
    expect(jobSummary(job([node('a')], { stepMin: 7, stepMax: 7 }))).toBe('1 node · step 7');
    expect(stepRange(null, null)).toBe('no steps yet');
  });

  test('problems count silent, straggler and idle-GPU nodes in words; a healthy job has none', () => {
    const nodes = [
      node('a', { state: 'silent' }),
      node('b', { state: 'straggler' }),
      node('c', { state: 'silent' }),
      node('d', { state: 'gpus-idle' }),
      node('e', { state: 'finished' }),
      node('f', { state: 'quiet' }),
    ];
    expect(jobProblems(job(nodes))).toBe('2 silent, 1 straggler, 1 GPUs idle');
    expect(jobProblems(job([node('a'), node('b', { state: 'finished' })]))).toBeNull();
  });

  test('the dot is the worst alert, else finished, live or idle by the nodes', () => {
    expect(jobStatus(job([node('a')], { worstAlert: 'critical' }), NOW)).toBe('critical');
    expect(jobStatus(job([node('a')], { worstAlert: 'warning' }), NOW)).toBe('warning');
    expect(jobStatus(job([node('a', { state: 'finished' }), node('b', { state: 'finished' })]), NOW)).toBe(
      'finished',
    );
    expect(jobStatus(job([node('a')]), NOW)).toBe('live');
    expect(
      jobStatus(job([node('a', { lastWriteAt: NOW - 3_600_000 }), node('b', { lastWriteAt: null })]), NOW),
    ).toBe('idle');
  });

  test('every node state has its own words (never colour alone)', () => {
    const states: JobNodeState[] = ['moving', 'silent', 'straggler', 'gpus-idle', 'finished', 'quiet'];
    const labels = states.map((s) => NODE_STATE_LABELS[s]);
    expect(new Set(labels).size).toBe(states.length);
    expect(NODE_STATE_LABELS['gpus-idle']).toBe('GPUs idle');
  });
});

describe('node rows', () => {
  test('where: host and GPU; the host left out when it is the node name; away: not connected', () => {
    expect(nodeWhere(node('node-c', { host: '127.0.0.1:7071' }))).toBe('127.0.0.1:7071 · GPU 87 %');
    expect(nodeWhere(node('gpu-box', { host: 'gpu-box', gpuUtilPct: null }))).toBe('GPU —');
    expect(nodeWhere(node('this machine', { host: null }))).toBe('GPU 87 %');
    expect(nodeWhere(node('local-1', { host: null }))).toBe('this machine · GPU 87 %');
    expect(nodeWhere(node('c', { host: 'h:1', connected: false, gpuUtilPct: null }))).toBe(
      'h:1 · not connected',
    );
  });

  test('progress: step and last write, or no steps yet', () => {
    expect(nodeProgress(node('a', { step: 1510, lastWriteAt: NOW - 3 * 60_000 }), NOW)).toBe(
      'step 1510 · last write 3 min ago',
    );
    expect(nodeProgress(node('a', { step: null, lastWriteAt: null }), NOW)).toBe(
      'no steps yet · last write never',
    );
  });
});

describe('overlay and filter', () => {
  const j = job([node('a'), node('bb'), node('ccc')]);
  const runs = j.nodes.map((n) => n.run);

  test("a job charts each node's run once; it is shown when the charts draw exactly those runs", () => {
    expect(jobRuns(j)).toEqual(runs);
    expect(jobRuns(job([node('a'), node('a', { node: 'a2' })]))).toEqual([runs[0]]);
    expect(showsJob(j, [runs[1]!, runs[0]!, runs[2]!])).toBe(true);
    expect(showsJob(j, runs.slice(0, 2))).toBe(false);
    expect(showsJob(j, [...runs, 'local'])).toBe(false);
  });

  test('the run filter keeps a job by its name or by one node (name, host or run), every word', () => {
    const other = job([node('x', { host: 'gpu-17:7071', run: 'gpu-17:7071//sft' })], { name: 'sft-2n' });
    expect(filterJobs([j, other], '').map((x) => x.name)).toEqual(['grpo-8n', 'sft-2n']);
    expect(filterJobs([j, other], 'GRPO').map((x) => x.name)).toEqual(['grpo-8n']);
    expect(filterJobs([j, other], 'gpu-17 sft').map((x) => x.name)).toEqual(['sft-2n']);
    expect(filterJobs([j, other], 'grpo gpu-17')).toEqual([]);
  });
});
