#!/usr/bin/env python3
"""DQN on numpy CartPole-v1 (numpy only): replay buffer, target network, ε-greedy decaying linearly to its floor,
Huber TD loss. Logs SB3's DQN keys to progress.csv (rollout/ep_rew_mean, rollout/exploration_rate, train/loss = the
TD loss, train/learning_rate, train/n_updates, time/*) plus train/q_values (the batch's mean Q(s, a)).
Fault q_divergence (at update --fault_at): the target network is synced every gradient step (no target), the loss
becomes a squared error and the learning rate x --lr_mult: the deadly triad, TD loss and Q values blow up.
"""
import os, sys, time
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recio
from npnn import MLP, Adam, CartPoleVec, SB3Csv, classic_args, run_path

p = classic_args(5e-4, ['q_divergence'])
p.add_argument('--lr_mult', type=float, default=20.0)
a = p.parse_args()

rec = recio.from_env()
RUN = a.run_dir
path = run_path(RUN)
rng = np.random.default_rng(a.seed)
N, T = 4, 100  # envs x steps per logging step
TRAIN_FREQ, BATCH, GAMMA, TARGET_EVERY = 4, 64, 0.99, 250  # gradient step every 4 env steps (per env batch)
EPS_FLOOR, EPS_FRACTION = 0.05, 0.3
env = CartPoleVec(N, rng)
q = MLP([4, 64, 64, 2], rng); qt = MLP([4, 64, 64, 2], rng); qt.copy_from(q)
opt = Adam(q.params(), a.lr)
BUF = 50000
bo = np.zeros((BUF, 4)); ba = np.zeros(BUF, int); br = np.zeros(BUF); bn = np.zeros((BUF, 4)); bd = np.zeros(BUF)
size = pos = 0
TOTAL = a.updates * N * T
out = SB3Csv(os.path.join(path, 'progress.csv')); rec.snap()
rec.event(ev='session_start', run=RUN, session=a.session, writer='csv', names='sb3', algo='dqn', env='cartpole',
          n_actions=2, max_return=500.0, steps_per_update=N * T, target_kl=None, pid=os.getpid())
obs = env.obs(); ep_ret, ep_len = [], []; gstep = 0; n_updates = 0; lr = a.lr
for update in range(1, a.updates + 1):
    tu = time.time()
    fault = a.fault == 'q_divergence' and update >= a.fault_at
    if a.fault != 'none' and update == a.fault_at:
        rec.event(ev='fault', kind=a.fault, run=RUN, session=a.session, update=update, step=gstep + N * T)
        lr = a.lr * a.lr_mult; opt.lr = lr
    losses, qs = [], []
    for t in range(T):
        eps = max(EPS_FLOOR, 1.0 - (1.0 - EPS_FLOOR) * gstep / (EPS_FRACTION * TOTAL))
        qv = q.forward(obs)
        act = np.where(rng.random(N) < eps, rng.integers(0, 2, N), qv.argmax(1))
        nobs, r, term, done, fin = env.step(act)
        real_next = nobs.copy()
        for i in range(N):
            bo[pos] = obs[i]; ba[pos] = act[i]; br[pos] = r[i]; bn[pos] = real_next[i]; bd[pos] = float(term[i])
            pos = (pos + 1) % BUF; size = min(size + 1, BUF)
        for R, L in fin:
            ep_ret.append(R); ep_len.append(L)
        obs = nobs; gstep += N
        if gstep > 200 and t % TRAIN_FREQ == 0:
            idx = rng.integers(0, size, BATCH)
            tq = qt.forward(bn[idx]) if not fault else q.forward(bn[idx])
            y = br[idx] + GAMMA * (1 - bd[idx]) * tq.max(1)
            qa = q.forward(bo[idx]); d = qa[np.arange(BATCH), ba[idx]] - y
            if fault:
                loss = float((d ** 2).mean()); g = 2 * d / BATCH
            else:
                ad = np.abs(d); loss = float(np.where(ad < 1, 0.5 * d ** 2, ad - 0.5).mean())
                g = np.clip(d, -1, 1) / BATCH
            dout = np.zeros_like(qa); dout[np.arange(BATCH), ba[idx]] = g
            grads, _ = q.backward(dout)
            opt.step(grads, max_norm=10.0)
            n_updates += 1
            losses.append(loss); qs.append(float(qa[np.arange(BATCH), ba[idx]].mean()))
            if fault or n_updates % TARGET_EVERY == 0:
                qt.copy_from(q)
    dt = time.time() - tu
    m = {'rollout/ep_rew_mean': float(np.mean(ep_ret[-100:])) if ep_ret else 0.0,
         'rollout/ep_len_mean': float(np.mean(ep_len[-100:])) if ep_len else 0.0,
         'rollout/exploration_rate': float(eps), 'time/episodes': float(len(ep_ret)),
         'time/fps': float(int(N * T / max(dt, 1e-6))), 'time/total_timesteps': float(gstep),
         'train/learning_rate': lr, 'train/n_updates': float(n_updates),
         'train/loss': float(np.mean(losses)) if losses else 0.0,
         'train/q_values': float(np.mean(qs)) if qs else 0.0}
    out.write(m); rec.snap()
    rec.truth({'ev': 'log', 'run': RUN, 'session': a.session, 'update': update, 'step': gstep, 'values': m})
    if update % 10 == 0:
        print(f'[{RUN}] upd {update} step {gstep} rew {m["rollout/ep_rew_mean"]:.1f} eps {eps:.2f} '
              f'loss {m["train/loss"]:.4g} q {m["train/q_values"]:.4g} dt {dt:.2f}', flush=True)
    left = a.interval - (time.time() - tu)
    if left > 0:
        time.sleep(left)
out.close(); rec.snap()
rec.event(ev='session_end', run=RUN, session=a.session, update=a.updates, step=gstep)
