#!/usr/bin/env python3
"""(The project's copy of ../shared/scenarios/score.py: its rule families also know the kinds of the family
recordings — critic_divergence, q_divergence, response_length_collapse, reward_hacking.)

Replay labelled recordings into one folder while a monitor watches it, then score the monitor's alerts.

  python3 score.py RECORDING_OR_SET... [--cwd PRODUCT_ROOT] [--cmd 'node bin/rlwatch.js watch {parent} --json']
                   [--parent DIR] [--speed X] [--max-wall 600] [--out DIR] [--env K=V ...]

Every recording (a folder with labels.json, or a folder of them) is replayed at once into PARENT/<scenario id>/
(a fresh temp folder unless --parent). The monitor command ({parent} is substituted) runs in --cwd and must print
NDJSON alert lines: {"type":"alert","run":…,"rule":…,"severity":…,"state":"raised"|"cleared","step":…,"value":…,
"id":"[run, rule, tag]","t":epoch ms}. Scoring (see README.md): detection per incident within its deadline,
latency in updates and seconds, citation checks (tag/step/value against what the trainer logged), duplicates,
false alarms in healthy windows per healthy run-hour. Prints a table and, last, one JSON summary line.
Stdlib only; stops only the processes it started.
"""
import argparse, json, math, os, shlex, signal, statistics, struct, subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import replay as rp

NEGATED_TAGS = {'train/entropy_loss'}  # SB3 logs -entropy: a monitor may cite the entropy itself

# A rule counts for an incident when labels.json lists it, or when its id names the same failure family
# (so a renamed or split rule still counts). Time-based kinds may also be detected by a run status line.
import re
RULE_FAMILIES = {
    'lr_blowup': r'kl|clip|entropy|non-?finite|nan',
    'nan': r'non-?finite|nan',
    'grad_explosion': r'grad|non-?finite|nan',
    'entropy_decay': r'entropy',
    'reward_plateau': r'plateau|stagnat|slow|no-progress',
    'crash': r'stall|exit|crash|hang|silen|dead',
    'hang': r'stall|exit|crash|hang|silen|dead',
    'restart': r'stall|exit|crash|hang|silen|dead',
    'critic_divergence': r'value|critic|td-|q-value|explained|diverg',
    'q_divergence': r'value|critic|td-|q-value|explained|diverg',
    'response_length_collapse': r'length',
    'reward_hacking': r'hack',
}
DOWN_STATES = {'stalled', 'exited', 'crashed', 'dead', 'hung'}


def rule_counts(inc, rule):
    return rule in inc['accepted_rules'] or bool(re.search(RULE_FAMILIES.get(inc['kind'], r'^$'), rule or ''))


def find_recordings(paths):
    out = []
    for p in paths:
        if os.path.isfile(os.path.join(p, 'labels.json')):
            out.append(os.path.abspath(p))
        elif os.path.isdir(p):
            for d in sorted(os.listdir(p)):
                if os.path.isfile(os.path.join(p, d, 'labels.json')):
                    out.append(os.path.abspath(os.path.join(p, d)))
    return out


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def f32(x):
    try:
        return struct.unpack('f', struct.pack('f', x))[0]
    except (OverflowError, struct.error):
        return x


def same(a, b):
    if a is None or b is None or (isinstance(b, float) and not math.isfinite(b)):
        na = a is None or (isinstance(a, float) and not math.isfinite(a))
        nb = b is None or (isinstance(b, float) and not math.isfinite(b))
        if na and nb:
            return True
        if a is None or b is None:
            return False
    return a == b or abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b)) or f32(a) == f32(b)


class Scenario:
    def __init__(self, rec):
        self.rec = rec
        self.labels = json.load(open(os.path.join(rec, 'labels.json')))
        self.id = self.labels['scenario']
        self.truth = read_jsonl(os.path.join(rec, 'truth.jsonl'))
        self.logs = [e for e in self.truth if e.get('ev') == 'log']
        self.sessions = sorted(self.labels['sessions'], key=lambda s: s['t'])
        self.spu = {(s['run'], s['session']): s['steps_per_update'] for s in self.sessions}
        writes = rp.load(rec)
        self.write_t = [w['t'] for w in writes if w['op'] != 'mark']

    def run_of(self, alert_run):
        """The labelled run_dir an alert's run name belongs to (None: not this scenario)."""
        if alert_run != self.id and not alert_run.startswith(self.id + '/'):
            return None
        rel = alert_run[len(self.id) + 1:] if alert_run != self.id else '.'
        runs = [r['run_dir'] for r in self.labels['runs']]
        for r in runs:
            if r == '.' or rel == r or rel.startswith(r.rstrip('/') + '/'):
                return r
        return runs[0] if len(runs) == 1 else rel

    def session_at(self, run, t):
        cur = None
        for s in self.sessions:
            if s['run'] == run and s['t'] <= t + 0.5:
                cur = s['session']
        return cur or (self.sessions[0]['session'] if self.sessions else None)

    def logged(self, run, session, tag, step):
        """(found_tag, value) of what the trainer logged for tag at step in that session."""
        for l in self.logs:
            if l['run'] != run or l['session'] != session or l['step'] != step:
                continue
            v = l['values']
            for cand in (tag, tag[len('history/'):] if tag.startswith('history/') else None, 'train/' + tag):
                if cand and cand in v:
                    return cand, v[cand]
            return None, None
        return None, None

    def step_logged(self, run, session, step):
        return any(l['run'] == run and l['session'] == session and l['step'] == step for l in self.logs)

    def last_before(self, run, t):
        prev = [l for l in self.logs if l['run'] == run and l['t'] <= t]
        return prev[-1] if prev else None


def check_citation(sc, run, session, a, tag, t_rec):
    """None when the alert's step/value/tag are what the data says, else a reason string; second: a note."""
    step, value = a.get('step'), a.get('value')
    if a.get('status_line'):
        return None, 'run status line: value not checked'
    if a['rule'] == 'stalled-run':
        last = sc.last_before(run, t_rec)
        if last is None:
            return 'no data before the stall', None
        if step != last['step']:
            return f'step {step} is not the last logged step {last["step"]}', None
        silent = t_rec - max((w for w in sc.write_t if w <= t_rec), default=0)
        if value is None or abs(value - silent) > 3 + 0.05 * silent:
            return f'silence {value} s but the data says {silent:.0f} s', None
        return None, None
    if step is None:
        return 'no step', None
    if not sc.step_logged(run, session, step):
        return f'step {step} was never logged in session {session}', None
    if tag is None:
        return None, 'run-level alert: value not checked'
    found, logged = sc.logged(run, session, tag, step)
    if found is None:
        return f'tag {tag} not logged at step {step}', None
    if same(value, logged):
        return None, None
    if found in NEGATED_TAGS and value is not None and same(-value, logged):
        return None, 'negated (documented sign convention)'
    return f'value {value} != logged {logged} ({found} @ {step})', None


def score(scenarios, alerts, t0, speed_of, other_lines):
    incidents, fas, tolerated, others, unlabelled, citations = [], [], [], [], [], []
    healthy_s = 0.0
    for sc in scenarios:
        for w in sc.labels['healthy_windows']:
            healthy_s += max(0.0, (w['to_t'] or sc.labels['end_t']) - w['from_t'])
        for inc in sc.labels['incidents']:
            incidents.append({'scenario': sc.id, **inc, 'alerts': []})
    inc_by = {}
    for inc in incidents:
        inc_by.setdefault(inc['scenario'], []).append(inc)
    for a in alerts:
        if a.get('state') != 'raised':
            continue
        sc = next((s for s in scenarios if s.run_of(a.get('run', '')) is not None), None)
        if sc is None:
            unlabelled.append(a)
            continue
        run = sc.run_of(a['run'])
        t_rec = (a['t'] / 1000.0 - t0) * speed_of(sc)
        session = sc.session_at(run, t_rec)
        tag = a.get('tag')
        if tag is None:
            try:
                tag = json.loads(a.get('id', 'null'))[2]
            except Exception:
                tag = None
        err, note = check_citation(sc, run, session, a, tag, t_rec)
        row = {'scenario': sc.id, 'run': a['run'], 'rule': a['rule'], 'severity': a['severity'], 'tag': tag,
               'step': a.get('step'), 'value': a.get('value'), 't_rec': round(t_rec, 2), 'session': session,
               'message': a.get('message'), 'citation_error': err, 'citation_note': note}
        citations.append(row)
        matched = None
        for inc in inc_by.get(sc.id, []):
            if inc['run_dir'] != run or not rule_counts(inc, a['rule']):
                continue
            if inc['detect_by'] == 'time':
                if t_rec >= inc['onset_t'] - 0.5 and session == inc['session']:
                    matched = inc
            elif session == inc['session'] and a.get('step') is not None and a['step'] >= inc['fault_start_step']:
                matched = inc
        if matched:
            matched['alerts'].append(row)
            continue
        win = None
        for w in sc.labels['healthy_windows']:
            if w['run_dir'] == run and w['session'] == session:
                win = w
        st = a.get('step')
        in_win = win is not None and t_rec >= win['from_t'] - 0.5 and (
            (st is not None and win['from_step'] <= st <= win['to_step']) or
            (st is None and t_rec <= (win['to_t'] or 1e18)))
        if in_win:
            if win.get('solved_from_step') is not None and st is not None and st >= win['solved_from_step'] \
                    and a['rule'] in win.get('tolerated_after_solved', []):
                tolerated.append(row)
            else:
                fas.append(row)
        else:
            # outside every healthy window: a real alert (not a status line) on a session where no fault had begun
            # is still a false alarm (e.g. a step that no healthy window covers, or an invented step)
            began = any(inc['run_dir'] == run and inc['session'] == session and (
                t_rec >= inc['onset_t'] - 0.5 or (st is not None and st >= inc['fault_start_step']))
                for inc in inc_by.get(sc.id, []))
            if not began and a.get('severity') in ('warning', 'critical') and win is not None \
                    and (st is None or st < win['from_step'] or st > win['to_step']) and t_rec <= (win['to_t'] or 1e18):
                fas.append(row)
            else:
                others.append(row)
    for inc in incidents:
        inc['alerts'].sort(key=lambda r: r['t_rec'])
        first = inc['alerts'][0] if inc['alerts'] else None
        inc['n_alerts'] = len(inc['alerts'])
        inc['duplicates'] = max(0, len(inc['alerts']) - 1)
        if first is None:
            inc['result'] = 'missed'
            inc['latency_updates'] = inc['latency_s'] = None
            continue
        spu = None
        for s in scenarios:
            if s.id == inc['scenario']:
                spu = s.spu.get((inc['run_dir'], inc['session']))
        inc['latency_s'] = round(first['t_rec'] - inc['onset_t'], 2)
        inc['latency_updates'] = (round((first['step'] - inc['onset_step']) / spu, 2)
                                  if first['step'] is not None and spu and inc['detect_by'] == 'updates' else None)
        if inc['detect_by'] == 'time':
            ok = inc['latency_s'] <= inc['deadline_s']
        else:
            ok = first['step'] <= inc['deadline_step'] and inc['latency_s'] <= inc['deadline_s']
        inc['result'] = 'detected' if ok else 'late'
        inc['first_rule'] = first['rule']
    n = len(incidents)
    det = [i for i in incidents if i['result'] == 'detected']
    lat_u = [max(0.0, i['latency_updates']) for i in det if i['latency_updates'] is not None]
    lat_s = [max(0.0, i['latency_s']) for i in det]
    cit_err = [c for c in citations if c['citation_error']]
    summary = {
        'recall': round(len(det) / n, 3) if n else None,
        'incidents': n, 'detected': len(det), 'late': sum(1 for i in incidents if i['result'] == 'late'),
        'missed': sum(1 for i in incidents if i['result'] == 'missed'),
        'false_alarms': len(fas),
        'false_alarms_per_healthy_run_hour': round(len(fas) / (healthy_s / 3600.0), 2) if healthy_s else None,
        'false_alarm_rules': dict(sorted({r: sum(1 for f in fas if f['rule'] == r) for r in {f['rule'] for f in fas}}.items())),
        'healthy_run_hours': round(healthy_s / 3600.0, 3),
        'median_latency_updates': statistics.median(lat_u) if lat_u else None,
        'median_latency_s': round(statistics.median(lat_s), 2) if lat_s else None,
        'citation_errors': len(cit_err), 'alerts_checked': len(citations),
        'duplicates': sum(i['duplicates'] for i in incidents),
        'tolerated': len(tolerated), 'other_alerts': len(others), 'unlabelled_run_alerts': len(unlabelled),
    }
    return summary, incidents, fas, tolerated, others, unlabelled, citations


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('recordings', nargs='+')
    ap.add_argument('--cmd', default='node bin/rlwatch.js watch {parent} --json')
    ap.add_argument('--cwd', default='.')
    ap.add_argument('--parent')
    ap.add_argument('--speed', type=float, help='override every recording\'s replay speed')
    ap.add_argument('--max-wall', type=float, default=600.0, help='hard bound on the replay+watch phase (s)')
    ap.add_argument('--out', help='folder for monitor.ndjson, monitor.stderr and score.json')
    ap.add_argument('--env', action='append', default=[], help='K=V for the monitor (default RLWATCH_STORE=memory)')
    ap.add_argument('--startup', type=float, default=4.0, help='seconds the monitor gets before the replay starts')
    a = ap.parse_args()
    recs = find_recordings(a.recordings)
    if not recs:
        sys.exit('score: no recordings (folders with labels.json) found')
    scenarios = [Scenario(r) for r in recs]
    parent = a.parent or tempfile.mkdtemp(prefix='rlbench-')
    os.makedirs(parent, exist_ok=True)
    if os.listdir(parent):
        sys.exit(f'score: {parent} is not empty')
    out = a.out or tempfile.mkdtemp(prefix='rlbench-out-')
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, RLWATCH_STORE='memory')
    for kv in a.env:
        k, _, v = kv.partition('=')
        env[k] = v
    speed_of = lambda sc: a.speed or sc.labels.get('replay_speed') or 1.0
    cmd = [c.replace('{parent}', parent) for c in shlex.split(a.cmd)]
    lines, lock = [], threading.Lock()
    errf = open(os.path.join(out, 'monitor.stderr'), 'w')
    mon = subprocess.Popen(cmd, cwd=a.cwd, env=env, stdout=subprocess.PIPE, stderr=errf, start_new_session=True)

    def reader():
        for raw in mon.stdout:
            with lock:
                lines.append((time.time(), raw.decode('utf-8', 'replace').rstrip('\n')))
    rt = threading.Thread(target=reader, daemon=True); rt.start()
    time.sleep(a.startup)
    t0 = time.time() + 1.0
    stop = threading.Event()
    ths = []
    for sc in scenarios:
        th = threading.Thread(target=rp.replay, args=(sc.rec, os.path.join(parent, sc.id), speed_of(sc), t0, stop),
                              daemon=True)
        th.start(); ths.append(th)
    end = t0 + max(sc.labels['end_t'] / speed_of(sc) for sc in scenarios)
    hard = time.time() + a.max_wall
    print(f'score: {len(scenarios)} recordings into {parent}; watching until +{end - t0:.0f} s (bound {a.max_wall:.0f} s)',
          flush=True)
    while time.time() < min(end, hard) and mon.poll() is None:
        time.sleep(0.5)
    truncated = time.time() >= hard and end > hard
    stop.set()
    rc = mon.poll()
    if rc is None:
        try:
            os.killpg(mon.pid, signal.SIGTERM)  # the monitor we started and its own children only
        except ProcessLookupError:
            pass
        try:
            mon.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(mon.pid, signal.SIGKILL); mon.wait()
    rt.join(timeout=5)
    errf.close()
    parsed, bad = [], 0
    with open(os.path.join(out, 'monitor.ndjson'), 'w') as f:
        for rtime, l in lines:
            f.write(l + '\n')
            try:
                d = json.loads(l)
                d['_recv'] = rtime
                parsed.append(d)
            except ValueError:
                bad += 1
    alerts, last_status = [], {}
    for d in parsed:
        if d.get('type') == 'alert':
            alerts.append(d)
        elif d.get('type') == 'run':
            st = d.get('status') or d.get('state')
            if st != last_status.get(d.get('run')) and st in DOWN_STATES:
                alerts.append({'type': 'alert', 'rule': 'run-' + st, 'state': 'raised', 'severity': 'status',
                               'run': d.get('run'), 'step': d.get('step'), 'value': None, 't': d.get('t'),
                               '_recv': d['_recv'], 'status_line': True})
            last_status[d.get('run')] = st
    for d in alerts:
        if not isinstance(d.get('t'), (int, float)):
            d['t'] = d['_recv'] * 1000
    summary, incidents, fas, tol, others, unl, cits = score(scenarios, alerts, t0, speed_of, parsed)
    summary['monitor_exit'] = rc
    summary['truncated_by_max_wall'] = truncated
    summary['unparsed_lines'] = bad
    summary['error_lines'] = sum(1 for d in parsed if d.get('type') == 'error')
    summary['reset_lines'] = sum(1 for d in parsed if d.get('type') == 'reset')
    # ---- table
    print(f'\n{"scenario / incident":44} {"kind":15} {"result":9} {"lat_upd":>7} {"lat_s":>7} {"dl":>9} {"alerts":>6}  first rule')
    for inc in incidents:
        dl = f'{inc["deadline_updates"]}u' if inc['detect_by'] == 'updates' else f'{inc["deadline_s"]:.0f}s'
        lu = '' if inc['latency_updates'] is None else f'{inc["latency_updates"]:.1f}'
        ls = '' if inc['latency_s'] is None else f'{inc["latency_s"]:.1f}'
        print(f'{inc["id"]:44} {inc["kind"]:15} {inc["result"]:9} {lu:>7} {ls:>7} {dl:>9} {inc["n_alerts"]:>6}  '
              f'{inc.get("first_rule", "-")}')
    for sc in scenarios:
        if not sc.labels['incidents']:
            print(f'{sc.id:44} {"healthy":15}')
    if fas:
        print('\nfalse alarms (healthy windows):')
        for r in fas:
            print(f'  {r["scenario"]:38} {r["rule"]:28} {r["severity"]:8} tag={r["tag"]} step={r["step"]} value={r["value"]}')
    if tol:
        print(f'\ntolerated (rule allowed once the task is solved): {len(tol)}')
    if others:
        print('\nother alerts (after a fault began, not an accepted rule for it):')
        for r in others:
            print(f'  {r["scenario"]:38} {r["rule"]:28} {r["severity"]:8} tag={r["tag"]} step={r["step"]}')
    ce = [c for c in cits if c['citation_error']]
    if ce:
        print('\ncitation errors:')
        for r in ce:
            print(f'  {r["scenario"]:38} {r["rule"]:28} tag={r["tag"]} step={r["step"]}: {r["citation_error"]}')
    if unl:
        print(f'\nalerts on runs outside the recordings (e.g. the machine): {len(unl)} '
              f'({", ".join(sorted({u["run"] + ":" + u["rule"] for u in unl}))})')
    with open(os.path.join(out, 'score.json'), 'w') as f:
        json.dump({'summary': summary, 'incidents': incidents, 'false_alarms': fas, 'tolerated': tol,
                   'other_alerts': others, 'unlabelled': unl, 'citations': cits, 'parent': parent,
                   'recordings': recs, 'cmd': cmd}, f, indent=1, default=str)
    print(f'\ndetails: {os.path.join(out, "score.json")}')
    print(json.dumps(summary))


if __name__ == '__main__':
    main()
