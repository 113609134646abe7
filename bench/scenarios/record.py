#!/usr/bin/env python3
"""Record scenarios (the project's copy of ../shared/scenarios/record.py, with a trainer registry and a labeller per
fault kind for the numpy family trainers of gen/): run each scenario's trainer session(s) in a scratch folder and record every write they
make there (writes.jsonl + blobs/), the trainer's ground truth (truth.jsonl) and the labels (labels.json).

  python3 record.py --spec gen/dev.json --out recordings [--only ID ...] [--jobs 4] [--python PY]
  python3 record.py --relabel recordings/ID        # rebuild labels.json from truth.jsonl + scenario.json

The recorder itself runs inside the trainer (gen/recio.py snapshots the folder after every flush:
what a flush added to a file becomes one append); this script only orchestrates sessions and builds labels from the ground truth. The
trainers need numpy + torch (+ the tensorboard package for --writer tb): pass --python for that interpreter.
"""
import argparse, json, math, os, shutil, statistics, subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, 'gen')
SHARED_GEN = os.path.join(HERE, '..', '..', '..', 'shared', 'scenarios', 'gen')
# Trainer registry: a spec session's "trainer" -> its script. The shared torch trainers (classic, grpo_toy) stay in
# ../shared/scenarios/gen; the numpy-only family trainers live in gen/ here.
TRAINERS = {
    'classic': os.path.join(SHARED_GEN, 'classic.py'),
    'grpo_toy': os.path.join(SHARED_GEN, 'grpo_toy.py'),
    'dqn': os.path.join(GEN, 'dqn.py'),
    'sac': os.path.join(GEN, 'sac.py'),
    'ppo_gauss': os.path.join(GEN, 'ppo_gauss.py'),
    'grpo_verl': os.path.join(GEN, 'grpo_verl.py'),
}

# Rule ids of the monitor under test that count as a correct detection of each fault kind.
ACCEPTED = {
    'lr_blowup': ['kl-above-target', 'kl-high-reward-falling', 'clip-fraction-out-of-band', 'entropy-collapse',
                  'entropy-collapse-low-temperature', 'non-finite'],
    'nan': ['non-finite'],
    'grad_explosion': ['grad-norm-spike', 'non-finite'],
    'entropy_decay': ['entropy-collapse', 'entropy-collapse-low-temperature'],
    'reward_plateau': ['reward-plateau', 'clip-near-zero-slow-learning'],
    'crash': ['stalled-run'],
    'hang': ['stalled-run'],
    'restart': ['stalled-run'],
    'critic_divergence': ['value-loss-divergence', 'explained-variance-collapse'],
    'q_divergence': ['value-loss-divergence', 'q-value-explosion'],
    'response_length_collapse': ['response-length-collapse'],
    'reward_hacking': ['reward-hacking'],
}
# Rules tolerated (not false alarms) once a classic run has solved its task (reward at its ceiling).
SOLVED_TOLERATED = ['reward-plateau', 'clip-near-zero-slow-learning']
KL_TAGS = ('train/approx_kl', 'losses/approx_kl', 'kl', 'train/kl')
ENT_TAGS = ('train/entropy_loss', 'losses/entropy', 'entropy', 'train/entropy')
REW_TAGS = ('rollout/ep_rew_mean', 'charts/episodic_return', 'reward', 'train/reward')
SOLVED_AT = {'cartpole': 475.0, 'acrobot': -100.0}
# The loss a critic / Q divergence is labelled on (SB3 PPO/A2C, SB3 SAC, SB3 DQN = the TD loss, verl).
CRITIC_LOSS_TAGS = ('train/value_loss', 'train/critic_loss', 'losses/value_loss', 'losses/qf_loss', 'critic/vf_loss',
                    'losses/td_loss', 'train/loss')
LEN_TAGS = ('response_length/mean', 'completions/mean_length', 'completion_length')
TRUNC_TAGS = ('response_length/clip_ratio', 'completions/clipped_ratio')
REFKL_TAGS = ('actor/kl_loss', 'kl', 'objective/kl', 'train/kl')
SCORE_TAGS = ('critic/score/mean', 'reward', 'train/reward')
# Updates a detection may take after the labelled onset, per kind.
DEADLINE_UPDATES = {'nan': 1, 'grad_explosion': 1, 'lr_blowup': 3, 'entropy_decay': 3, 'reward_plateau': 30,
                    'critic_divergence': 3, 'q_divergence': 3, 'response_length_collapse': 3, 'reward_hacking': 5}


def _pre_median(pre, tags, val):
    xs = [val(l, tags) for l in pre[-10:]]
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    return statistics.median(xs) if xs else None


def label_onset(kind, L, flt, pre, val):
    """Labeller per fault kind: the first logged update (at or after the injection) whose ground truth shows the
    labelled symptom, and facts for labels.json; (None, facts) when the symptom never reaches the criterion."""
    after = [l for l in L if l['update'] >= flt['update']]
    if kind in ('critic_divergence', 'q_divergence'):
        # the critic's / TD loss at 10x its level before the fault: a blow-up, not a bump
        base = _pre_median(pre, CRITIC_LOSS_TAGS, val)
        on = next((l for l in after if base and (val(l, CRITIC_LOSS_TAGS) or 0) >= 10 * base), None)
        return on, {'loss_before': base}
    if kind == 'response_length_collapse':
        base = _pre_median(pre, LEN_TAGS, val)
        on = next((l for l in after if base and (val(l, LEN_TAGS) or 9e9) <= base / 5), None)
        return on, {'length_before': base}
    if kind == 'reward_hacking':
        # reward up, KL to the reference >= 10x its level before, and responses longer (1.5x) or truncated (+0.2)
        kl0, len0, tr0, r0 = (_pre_median(pre, t, val) for t in (REFKL_TAGS, LEN_TAGS, TRUNC_TAGS, SCORE_TAGS))

        def hacked(l):
            kl, ln, tr, r = (val(l, t) for t in (REFKL_TAGS, LEN_TAGS, TRUNC_TAGS, SCORE_TAGS))
            longer = (ln is not None and len0 and ln >= 1.5 * len0) or (tr is not None and tr0 is not None and tr >= tr0 + 0.2)
            return kl is not None and kl0 is not None and kl >= 10 * max(kl0, 1e-3) and r is not None and r > r0 and longer
        on = next((l for l in after if hacked(l)), None)
        return on, {'kl_before': kl0, 'length_before': len0, 'truncation_before': tr0, 'reward_before': r0}
    return None, {}


def run_scenario(sc, out_root, python):
    out = os.path.join(out_root, sc['id'])
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    scratch = tempfile.mkdtemp(prefix='rlrec-')
    root = os.path.join(scratch, 'scenario')
    os.makedirs(root)
    t0 = time.time() + 0.5
    env = dict(os.environ, RLREC_ROOT=root, RLREC_OUT=out, RLREC_T0=repr(t0))
    with open(os.path.join(out, 'scenario.json'), 'w') as f:
        json.dump(sc, f, indent=2)
    time.sleep(max(0.0, t0 - time.time()))
    logf = open(os.path.join(scratch, 'trainer.log'), 'w')
    for i, ses in enumerate(sc['sessions']):
        if ses.get('gap_before_s'):
            time.sleep(ses['gap_before_s'])
        cmd = [python, TRAINERS[ses['trainer']]] + [str(x) for x in ses['args']] + ['--session', f's{i + 1}']
        logf.write(f'$ {" ".join(cmd)}\n'); logf.flush()
        pr = subprocess.Popen(cmd, env=env, stdout=logf, stderr=subprocess.STDOUT)
        pr.wait()
        logf.write(f'[exit {pr.returncode}]\n'); logf.flush()
    logf.close()
    shutil.copy(os.path.join(scratch, 'trainer.log'), os.path.join(out, 'trainer.log'))
    shutil.rmtree(scratch, ignore_errors=True)
    labels = build_labels(out)
    print(f'{sc["id"]}: recorded, {len(labels["incidents"])} incident(s), end {labels["end_t"]:.0f} s', flush=True)


def _read_jsonl(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                out.append(json.loads(line))
    return out


def build_labels(out):
    sc = json.load(open(os.path.join(out, 'scenario.json')))
    truth = _read_jsonl(os.path.join(out, 'truth.jsonl'))
    writes = _read_jsonl(os.path.join(out, 'writes.jsonl'))
    last_write_t = max((w['t'] for w in writes), default=0.0)
    sessions = [e for e in truth if e.get('ev') == 'session_start']
    logs = [e for e in truth if e.get('ev') == 'log']
    faults = [e for e in truth if e.get('ev') == 'fault']
    ends = {(e['run'], e['session']): e for e in truth if e.get('ev') == 'session_end'}
    runs = {}
    for s in sessions:
        runs.setdefault(s['run'], {'run_dir': s['run'], 'sessions': []})['sessions'].append(s['session'])
    gaps = []
    for r in runs:
        for ses in runs[r]['sessions']:
            ts = [l['t'] for l in logs if l['run'] == r and l['session'] == ses]
            gaps += [b - a for a, b in zip(ts, ts[1:])]
    median_interval = statistics.median(gaps) if gaps else 1.0
    stall_deadline = max(3 * median_interval, 30.0)
    incidents, healthy = [], []

    def slog(run, ses):
        return [l for l in logs if l['run'] == run and l['session'] == ses]

    def val(l, tags):
        for t in tags:
            if t in l['values']:
                v = l['values'][t]
                return -v if t == 'train/entropy_loss' else v
        return None

    for s in sessions:
        run, ses = s['run'], s['session']
        L = slog(run, ses)
        spu = s['steps_per_update']
        meta = {'algo': s['algo'], 'env': s['env'], 'writer': s['writer'], 'names': s['names']}
        flt = next((f for f in faults if f['run'] == run and f['session'] == ses), None)
        later = [x for x in sessions if x['run'] == run and x['t'] > s['t']]
        ses_start_t = L[0]['t'] if L else s['t']
        healthy_to_step, healthy_to_t = None, None
        if flt is None:
            healthy_to_step = L[-1]['step'] if L else 0
            healthy_to_t = (later[0]['t'] if later else None)
        else:
            kind = flt['kind']
            inc = {'id': f'{sc["id"]}#{len(incidents) + 1}', 'kind': kind, 'run_dir': run, 'session': ses,
                   'accepted_rules': list(ACCEPTED[kind]), 'fault_update': flt['update']}
            if kind in ('crash', 'hang'):
                last = L[-1] if L else None
                if later:
                    inc['kind'] = 'restart'
                    inc['accepted_rules'] = list(ACCEPTED['restart'])
                    inc['restart_t'] = round(later[0]['t'], 3)
                inc.update({'onset_update': last['update'] if last else 0, 'onset_step': last['step'] if last else 0,
                            'onset_t': round(last['t'], 3) if last else round(s['t'], 3),
                            'fault_start_step': last['step'] if last else 0,
                            'deadline_updates': None, 'deadline_s': round(stall_deadline, 1),
                            'detect_by': 'time', 'process_alive': kind == 'hang'})
                healthy_to_step = last['step'] if last else 0
                healthy_to_t = inc['onset_t']
            else:
                at = next((l for l in L if l['update'] >= flt['update']), None)
                pre = [l for l in L if l['update'] < flt['update']]
                onset = at
                dl = DEADLINE_UPDATES[kind]
                if kind == 'lr_blowup':
                    kl_on = val(at, KL_TAGS) if at else None
                    kl_pre = [val(l, KL_TAGS) for l in pre[-10:]]
                    kl_pre = [k for k in kl_pre if k is not None and math.isfinite(k)]
                    if kl_on is not None and kl_pre:
                        base = max(0.02, statistics.median(kl_pre))
                        inc['kl_spike_factor'] = round(kl_on / base, 2)
                        inc['kl_at_onset'] = kl_on
                        if kl_on >= 10 * base:
                            dl = 1
                if kind == 'entropy_decay':
                    floor = 0.25 * math.log(s['n_actions'])
                    inc['entropy_floor'] = round(floor, 4)
                    onset = next((l for l in L if l['update'] >= flt['update'] and (val(l, ENT_TAGS) or 9e9) < floor), None)
                if kind in ('critic_divergence', 'q_divergence', 'response_length_collapse', 'reward_hacking'):
                    onset, facts = label_onset(kind, L, flt, pre, val)
                    inc.update({k: v for k, v in facts.items() if v is not None})
                if onset is None:
                    inc['note'] = 'fault injected but its symptom never reached the labelled criterion'
                    onset = L[-1]
                inc.update({'fault_start_step': at['step'] if at else onset['step'], 'onset_update': onset['update'],
                            'onset_step': onset['step'], 'onset_t': round(onset['t'], 3), 'deadline_updates': dl,
                            'detect_by': 'updates'})
                dl_log = next((l for l in L if l['update'] >= onset['update'] + dl), None)
                inc['deadline_step'] = onset['step'] + dl * spu
                inc['deadline_s'] = round((dl_log['t'] if dl_log else onset['t'] + dl * median_interval) - onset['t'] + 5.0, 1)
                healthy_to_step = (at['step'] - spu) if at else onset['step'] - spu
                healthy_to_t = round(at['t'], 3) if at else round(onset['t'], 3)
            inc.update(meta)
            incidents.append(inc)
        from_step = L[0]['step'] if L else 0
        win = {'run_dir': run, 'session': ses, 'from_step': from_step, 'to_step': healthy_to_step,
               'from_t': round(s['t'], 3), 'to_t': healthy_to_t, 'tolerated_rules': []}
        if s['env'] in SOLVED_AT:
            solved = next((l for l in L if (val(l, REW_TAGS) or -1e9) >= SOLVED_AT[s['env']]), None)
            if solved is not None:
                win['solved_from_step'] = solved['step']
                win['tolerated_after_solved'] = SOLVED_TOLERATED
        if healthy_to_step is None or healthy_to_step >= from_step:
            healthy.append(win)
    tail = 20.0
    for inc in incidents:
        if inc['detect_by'] == 'time':
            tail = max(tail, inc['onset_t'] + inc['deadline_s'] + 30.0 - last_write_t)
    end_t = round(last_write_t + tail, 1)
    for w in healthy:
        if w['to_t'] is None:
            w['to_t'] = end_t
    labels = {
        'scenario': sc['id'], 'description': sc.get('description', ''), 'family': sc.get('family'),
        'runs': [{'run_dir': r, 'sessions': v['sessions']} for r, v in runs.items()],
        'median_log_interval_s': round(median_interval, 3), 'last_write_t': last_write_t, 'end_t': end_t,
        'replay_speed': sc.get('replay_speed', 1.0),
        'sessions': [{k: s[k] for k in ('run', 'session', 't', 'writer', 'names', 'algo', 'env', 'steps_per_update',
                                        'n_actions')} for s in sessions],
        'session_ends': [{'run': k[0], 'session': k[1], 't': v['t'], 'step': v['step']} for k, v in ends.items()],
        'incidents': incidents, 'healthy_windows': healthy,
    }
    with open(os.path.join(out, 'labels.json'), 'w') as f:
        json.dump(labels, f, indent=2)
    return labels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--spec')
    ap.add_argument('--out')
    ap.add_argument('--only', nargs='*')
    ap.add_argument('--jobs', type=int, default=4)
    ap.add_argument('--python', default=os.environ.get('RLREC_PYTHON', sys.executable))
    ap.add_argument('--relabel')
    a = ap.parse_args()
    if a.relabel:
        build_labels(a.relabel)
        return
    specs = json.load(open(a.spec))
    if a.only:
        specs = [s for s in specs if s['id'] in a.only]
    os.makedirs(a.out, exist_ok=True)
    sem = threading.Semaphore(a.jobs)
    ths = []

    def job(sc):
        with sem:
            try:
                run_scenario(sc, a.out, a.python)
            except Exception as e:  # keep the other scenarios going
                print(f'{sc["id"]}: FAILED {e!r}', flush=True)

    for sc in specs:
        th = threading.Thread(target=job, args=(sc,))
        th.start(); ths.append(th)
    for th in ths:
        th.join()


if __name__ == '__main__':
    main()
