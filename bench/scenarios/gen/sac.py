#!/usr/bin/env python3
"""SAC on numpy Pendulum-v1 (numpy only): tanh-squashed Gaussian actor, twin critics with Polyak targets, the
entropy coefficient auto-tuned towards target entropy -dim(A). Logs SB3's SAC keys to progress.csv
(train/critic_loss, train/actor_loss, train/ent_coef, train/ent_coef_loss, train/learning_rate, train/n_updates,
rollout/*, time/*) plus train/entropy (-E[log pi], negative once the policy is sharper than the target).
Fault critic_divergence (at update --fault_at): the critics' learning rate x --lr_mult and the target networks
track the critics at once (tau 1): the critic loss grows by orders of magnitude while actor metrics look normal.
"""
import math, os, sys, time
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recio
from npnn import MLP, Adam, PendulumVec, SB3Csv, classic_args, run_path

p = classic_args(1e-3, ['critic_divergence'])
p.add_argument('--lr_mult', type=float, default=30.0)
a = p.parse_args()

rec = recio.from_env()
RUN = a.run_dir
path = run_path(RUN)
rng = np.random.default_rng(a.seed)
N, T, GRAD_STEPS, B, GAMMA, TAU = 4, 50, 10, 64, 0.99, 0.02
TARGET_ENT = -1.0
env = PendulumVec(N, rng)
actor = MLP([3, 32, 32, 2], rng, act='relu', out_scale=0.1)
q1, q2 = MLP([4, 32, 32, 1], rng, act='relu'), MLP([4, 32, 32, 1], rng, act='relu')
t1, t2 = MLP([4, 32, 32, 1], rng, act='relu'), MLP([4, 32, 32, 1], rng, act='relu')
t1.copy_from(q1); t2.copy_from(q2)
aopt = Adam(actor.params(), a.lr); qopt = Adam(q1.params() + q2.params(), a.lr)
log_alpha = np.zeros(1); alopt = Adam([log_alpha], a.lr)
BUF = 40000
bo = np.zeros((BUF, 3)); ba = np.zeros((BUF, 1)); br = np.zeros(BUF); bn = np.zeros((BUF, 3)); bd = np.zeros(BUF)
size = pos = 0


def sample(obs):
    """Squashed Gaussian: action in [-2, 2], its log-probability and what the gradients need."""
    out = actor.forward(obs)
    mu, ls = out[:, :1], np.clip(out[:, 1:], -5, 2)
    sd = np.exp(ls); eps = rng.standard_normal(mu.shape); u = mu + sd * eps; th = np.tanh(u)
    logp = (-0.5 * eps ** 2 - ls - 0.5 * math.log(2 * math.pi) - np.log(2 * (1 - th ** 2) + 1e-6)).sum(1)
    return 2 * th, logp, (u, th, sd, eps, out)


out = SB3Csv(os.path.join(path, 'progress.csv')); rec.snap()
rec.event(ev='session_start', run=RUN, session=a.session, writer='csv', names='sb3', algo='sac', env='pendulum',
          n_actions=None, max_return=0.0, steps_per_update=N * T, target_kl=None, pid=os.getpid())
obs = env.obs(); ep_ret, ep_len = [], []; gstep = 0; n_updates = 0; qlr = a.lr; tau = TAU
for update in range(1, a.updates + 1):
    tu = time.time()
    if a.fault != 'none' and update == a.fault_at:
        rec.event(ev='fault', kind=a.fault, run=RUN, session=a.session, update=update, step=gstep + N * T)
        qlr = a.lr * a.lr_mult; qopt.lr = qlr; tau = 1.0
    closs, aloss, eloss, ents, alphas = [], [], [], [], []
    for t in range(T):
        if gstep < 1000:
            act = rng.uniform(-2, 2, (N, 1))
        else:
            act, _, _ = sample(obs)
        nobs, r, term, done, fin = env.step(act)
        for i in range(N):
            bo[pos] = obs[i]; ba[pos] = act[i]; br[pos] = r[i]; bn[pos] = nobs[i]; bd[pos] = 0.0
            pos = (pos + 1) % BUF; size = min(size + 1, BUF)
        for R, L in fin:
            ep_ret.append(R); ep_len.append(L)
        obs = nobs; gstep += N
    for _ in range(GRAD_STEPS):
        idx = rng.integers(0, size, B)
        s, ac, r, s2 = bo[idx], ba[idx], br[idx], bn[idx]
        alpha = float(np.exp(log_alpha[0]))
        a2, lp2, _ = sample(s2)
        x2 = np.concatenate([s2, a2 / 2], 1)
        qn = np.minimum(t1.forward(x2), t2.forward(x2))[:, 0] - alpha * lp2
        y = r + GAMMA * qn
        x = np.concatenate([s, ac / 2], 1)
        p1 = q1.forward(x)[:, 0]; g1, _ = q1.backward(((p1 - y) / B)[:, None])
        p2 = q2.forward(x)[:, 0]; g2, _ = q2.backward(((p2 - y) / B)[:, None])
        qopt.step(g1 + g2)
        closs.append(0.5 * float(((p1 - y) ** 2).mean() + ((p2 - y) ** 2).mean()))
        # actor: E[alpha log pi - min Q]
        an, lp, (u, th, sd, eps, aout) = sample(s)
        xa = np.concatenate([s, an / 2], 1)
        v1 = q1.forward(xa)[:, 0]; v2 = q2.forward(xa)[:, 0]
        use1 = v1 <= v2
        _, d1 = q1.backward(np.where(use1, 1.0, 0.0)[:, None])
        q1.forward(xa)
        _, d2 = q2.backward(np.where(use1, 0.0, 1.0)[:, None])
        dq_da = (d1[:, 3:] + d2[:, 3:]) / 2  # input is a/2
        du = (alpha * 2 * th - dq_da * 2 * (1 - th ** 2)) / B
        dmu, dls = du, du * sd * eps - alpha / B
        actor.forward(s)
        ga, _ = actor.backward(np.concatenate([dmu, dls], 1))
        aopt.step(ga)
        aloss.append(float((alpha * lp - np.minimum(v1, v2)).mean()))
        ents.append(float(-lp.mean()))
        gal = -float((lp + TARGET_ENT).mean())
        alopt.step([np.array([gal])])
        eloss.append(float(-(log_alpha[0] * (lp + TARGET_ENT)).mean())); alphas.append(alpha)
        t1.copy_from(q1, tau); t2.copy_from(q2, tau)
        n_updates += 1
    dt = time.time() - tu
    m = {'rollout/ep_rew_mean': float(np.mean(ep_ret[-100:])) if ep_ret else 0.0,
         'rollout/ep_len_mean': float(np.mean(ep_len[-100:])) if ep_len else 0.0,
         'time/episodes': float(len(ep_ret)), 'time/fps': float(int(N * T / max(dt, 1e-6))),
         'time/total_timesteps': float(gstep), 'train/actor_loss': float(np.mean(aloss)),
         'train/critic_loss': float(np.mean(closs)), 'train/ent_coef': float(np.mean(alphas)),
         'train/ent_coef_loss': float(np.mean(eloss)), 'train/entropy': float(np.mean(ents)),
         'train/learning_rate': a.lr, 'train/n_updates': float(n_updates)}
    out.write(m); rec.snap()
    rec.truth({'ev': 'log', 'run': RUN, 'session': a.session, 'update': update, 'step': gstep, 'values': m})
    if update % 10 == 0:
        print(f'[{RUN}] upd {update} step {gstep} rew {m["rollout/ep_rew_mean"]:.1f} closs {m["train/critic_loss"]:.4g} '
              f'aloss {m["train/actor_loss"]:.4g} alpha {m["train/ent_coef"]:.3g} ent {m["train/entropy"]:.3f} dt {dt:.2f}',
              flush=True)
    left = a.interval - (time.time() - tu)
    if left > 0:
        time.sleep(left)
out.close(); rec.snap()
rec.event(ev='session_end', run=RUN, session=a.session, update=a.updates, step=gstep)
