// inspect on an mlruns/ tree against an independent reader: a few lines of Python parsing the same files as
// MLflow's FileStore does (metric lines split on " ", int/float; params, tags and meta.yaml as text).

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { discoverRuns } from '../../../src/core/discovery';
import { inspectPath, type InspectReport } from '../../../src/core/inspect';
import { MlflowFileStore, MlflowRunWriter } from '../../helpers/mlflow-store';
import { fixture } from '../readers/helpers';
import { tempDirs } from '../../helpers/temp-dirs';

const tmp = tempDirs();

/**
 * Per run (by its key: `EXP/NAME`, EXP the experiment's meta.yaml name, NAME the run's MLflow name or id, a later
 * duplicate `NAME (ID)` by start time; deleted runs left out): name, params, per metric key a summary; malformed
 * lines counted.
 */
const REFERENCE = String.raw`
import json, math, os, re, sys
root = sys.argv[1]
def plain(t):
    if not re.fullmatch(r'-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?', t): return t
    if re.fullmatch(r'-?\d+', t): return int(t) if abs(int(t)) <= 2**53 - 1 else t
    f = float(t)
    return f if math.isfinite(f) else t
def files(d):
    out = {}
    for dp, _, fs in os.walk(d):
        for f in fs:
            p = os.path.join(dp, f)
            out[os.path.relpath(p, d).replace(os.sep, '/')] = open(p).read()
    return out
def num(v):
    return None if math.isnan(v) else ('inf' if v == math.inf else '-inf' if v == -math.inf else v)
runs, found = {}, []
for dp, ds, fs in os.walk(root):
    if 'meta.yaml' not in fs: continue
    meta = open(os.path.join(dp, 'meta.yaml')).read()
    if not re.search(r'^run_uuid: *\S', meta, re.M): continue
    ds[:] = []
    fields = dict(l.split(': ', 1) for l in meta.splitlines())
    tags = files(os.path.join(dp, 'tags'))
    run_name = fields.get('run_name', "''")
    name = tags.get('mlflow.runName') or (run_name if run_name != "''" else None) or fields['run_uuid']
    metrics, bad = {}, 0
    for key, text in files(os.path.join(dp, 'metrics')).items():
        pts = []
        for line in text.splitlines():
            parts = line.strip().split(' ')
            try:
                if len(parts) not in (2, 3): raise ValueError(line)
                pts.append((int(parts[2]) if len(parts) == 3 else 0, float(parts[1])))
            except ValueError:
                bad += 1
        fin = [v for _, v in pts if math.isfinite(v)]
        metrics[key] = dict(count=len(pts), firstStep=pts[0][0], lastStep=pts[-1][0], sum=sum(fin),
                            min=min(fin) if fin else None, max=max(fin) if fin else None, last=num(pts[-1][1]),
                            nonFinite=len(pts) - len(fin))
    if fields.get('lifecycle_stage') == 'deleted': continue
    rel = os.path.relpath(dp, root).replace(os.sep, '/')
    exp_dir, run_id = os.path.split(rel)
    exp_meta = os.path.join(root, exp_dir, 'meta.yaml')
    if exp_dir and os.path.exists(exp_meta):
        exp_fields = dict(l.split(': ', 1) for l in open(exp_meta).read().splitlines() if ': ' in l)
        if exp_fields.get('lifecycle_stage') == 'deleted': continue
        head, _ = os.path.split(exp_dir)
        exp_dir = os.path.join(head, exp_fields.get('name', os.path.basename(exp_dir))).replace(os.sep, '/')
    start = fields.get('start_time', 'null')
    found.append((math.inf if start == 'null' else int(start), run_id, (exp_dir + '/' if exp_dir else '') + name, dict(
        name=name, params={k: plain(v) for k, v in files(os.path.join(dp, 'params')).items()},
        metrics=metrics, bad=bad, files=sorted(['meta.yaml'] + ['metrics/' + k for k in metrics]))))
for start, run_id, key, run in sorted(found, key=lambda f: (f[0], f[1])):
    runs[key if key not in runs else f'{key} ({run_id})'] = run
print(json.dumps(runs))
`;

type Reference = Record<
  string,
  {
    name: string;
    params: Record<string, unknown>;
    metrics: Record<string, Record<string, unknown>>;
    bad: number;
    files: string[];
  }
>;

const asRef = (v: number | null): unknown => (v === Infinity ? 'inf' : v === -Infinity ? '-inf' : v);

/** inspect's report of `root` checked run by run against the Python reader's; returns both. */
async function compareWithPython(root: string): Promise<{ report: InspectReport; ref: Reference }> {
  const report = await inspectPath(root);
  const ref = JSON.parse(execFileSync('python3', ['-c', REFERENCE, root]).toString()) as Reference;
  expect(report.runs.map((r) => r.run)).toEqual(Object.keys(ref).sort());
  for (const run of report.runs) {
    const want = ref[run.run]!;
    expect(run.sources.map((s) => s.file)).toEqual(want.files);
    expect(run.sources.every((s) => s.format === 'mlflow')).toBe(true);
    expect(run.sources.flatMap((s) => s.errors).length).toBe(want.bad);
    expect(run.config?.['mlflow.runName']).toBe(want.name);
    for (const [k, v] of Object.entries(want.params)) expect(run.config?.[k]).toEqual(v);
    expect(Object.keys(run.scalars)).toEqual(Object.keys(want.metrics).sort());
    for (const [tag, s] of Object.entries(run.scalars))
      expect({ ...s, last: asRef(s.last) }).toEqual(want.metrics[tag]);
  }
  return { report, ref };
}

test('inspect reads an mlruns/ tree exactly as an independent Python reader of the same files', async () => {
  const root = tmp('rlwatch-mlflow-inspect-');
  const store = new MlflowFileStore(join(root, 'mlruns'));
  const exp0 = store.experiment('0', 'Default');
  const exp1 = store.experiment('412', 'ppo-sweep');
  const ppo = exp1.run({
    runId: '9f8e7d6c5b4a',
    runName: 'ppo-seed-1',
    params: {
      learning_rate: '0.0003',
      n_steps: '2048',
      target_kl: '0.015',
      policy: 'MlpPolicy',
      clip_range: '0.2',
    },
  });
  let seed = 7;
  const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 0.5;
  for (let step = 0; step < 300; step++) {
    const t = 1_700_000_000_000 + step * 1237;
    ppo.logMetric('rollout/ep_rew_mean', step * 0.5 + rand(), t, step * 2048);
    ppo.logMetric('train/approx_kl', Math.abs(rand()) / 100, t, step * 2048);
    ppo.logMetric('train/loss', step === 150 ? Number.NaN : step === 151 ? Infinity : rand(), t, step * 2048);
  }
  ppo.appendLine('train/loss', 'garbage line here\n');
  ppo.logMetric('train/loss', 0.125, 1_700_000_999_000, 300 * 2048);
  ppo.end(3, 1_700_001_000_000);
  const unnamed = exp0.run({ runId: '00aa11bb', params: { lr: '1e-05', seed: '007' } });
  unnamed.logMetric('reward', 1, 1_700_000_000_000, 0);
  unnamed.logMetric('reward', Number.NEGATIVE_INFINITY, 1_700_000_001_000, 1);
  const renamed = exp0.run({ runId: 'ccdd', runName: 'old-name' });
  renamed.setTag('mlflow.runName', 'new-name');
  renamed.logMetric('eval/score', 3, 1_700_000_000_000, 5);

  // Two runs of one name: the one started first keeps it, whatever the ids; the other is `NAME (ID)`.
  exp1.run({ runId: 'zz01', runName: 'twin', startMs: 1_700_000_000_500 }).logMetric('x', 1, 1, 0);
  exp1.run({ runId: 'aa02', runName: 'twin', startMs: 1_700_000_000_900 }).logMetric('x', 2, 1, 0);
  // A deleted run (MLflow's bin) is no run; its name is free for another.
  const gone = exp1.run({ runId: 'dead01', runName: 'ppo-seed-2', startMs: 1_600_000_000_000 });
  gone.logMetric('x', 1, 1, 0);
  gone.delete();
  exp1.run({ runId: 'live02', runName: 'ppo-seed-2' }).logMetric('x', 3, 1, 0);
  // A deleted experiment (moved to .trash/, its runs unmarked): none of its runs is a run.
  const binned = store.experiment('9', 'binned');
  binned.run({ runId: 'bb09', runName: 'ppo-seed-1' }).logMetric('x', 1, 1, 0);
  binned.delete();
  // An experiment folder without its meta.yaml: its id stays in the key.
  new MlflowRunWriter(join(root, 'mlruns', '7'), '7', { runId: 'ee07', runName: 'orphan' }).logMetric(
    'x',
    1,
    1,
    0,
  );

  const { report, ref } = await compareWithPython(root);
  expect(Object.keys(ref).sort()).toEqual([
    'mlruns/7/orphan',
    'mlruns/Default/00aa11bb',
    'mlruns/Default/new-name',
    'mlruns/ppo-sweep/ppo-seed-1',
    'mlruns/ppo-sweep/ppo-seed-2',
    'mlruns/ppo-sweep/twin',
    'mlruns/ppo-sweep/twin (aa02)',
  ]);
  expect(ref['mlruns/ppo-sweep/ppo-seed-1']!.bad).toBe(1);
  const run = (key: string) => report.runs.find((r) => r.run === key)!;
  expect(run('mlruns/ppo-sweep/ppo-seed-1').progress).toMatchObject({ fraction: 1, status: 'FINISHED' });
  expect(run('mlruns/ppo-sweep/twin').config?.['mlflow.runId']).toBe('zz01');
  expect(run('mlruns/ppo-sweep/ppo-seed-2').config?.['mlflow.runId']).toBe('live02');
  // The run's files are still read from its folder.
  const found = await discoverRuns(root);
  expect(found.runs.find((r) => r.run === 'mlruns/Default/new-name')!.dir).toBe(
    join(root, 'mlruns', '0', 'ccdd'),
  );
});

/** The real stores' runs by MLflow name, under their experiments' names (`Default`, `MLOps_CA_2`), never by id. */
const KEYS: Record<string, string[]> = {
  '11sleahy__MLFlow_Framework': [
    'mlruns/Default/learned-dolphin-872',
    'mlruns/Default/redolent-bear-282',
    'mlruns/Default/unique-shrimp-60',
  ],
  '03MuskaanJain__Iris_MLFlow': ['mlruns/MLOps_CA_2/DT', 'mlruns/MLOps_CA_2/SVM_kernel'],
};

test.each(['11sleahy__MLFlow_Framework', '03MuskaanJain__Iris_MLFlow'])(
  'inspect reads the real mlruns/ of %s exactly as the Python reader',
  async (name) => {
    const { report } = await compareWithPython(fixture(`mlflow/${name}`));
    expect(report.runs.map((r) => r.run)).toEqual(KEYS[name]);
    // Every run of these ended: MLflow's status 3.
    for (const r of report.runs) {
      expect(r.config?.['mlflow.status']).toBe('FINISHED');
      // The tags, but not the logged models' JSON history.
      expect(r.config?.['mlflow.tags']).toHaveProperty(['mlflow.user']);
      expect(r.config?.['mlflow.tags']).not.toHaveProperty(['mlflow.log-model.history']);
    }
  },
);
