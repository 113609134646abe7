#!/usr/bin/env python3
"""PPO with a diagonal Gaussian policy (state-independent log std, as SB3's MlpPolicy) on numpy Pendulum-v1
(numpy only): GAE, clipped surrogate, normalised advantages, separate value net. Logs SB3's continuous-action PPO
keys to progress.csv: train/entropy_loss (= -entropy: the Gaussian's entropy 1.42 + log std turns negative as the
std falls under 0.24 while it learns), train/std, train/approx_kl, train/clip_fraction, train/value_loss,
train/explained_variance, train/policy_gradient_loss, train/loss, rollout/*, time/*.
Fault critic_divergence (at update --fault_at): a reward-scaling bug multiplies the rewards the critic is trained
on by --scale_mult per update (the logged episode reward stays the env's): the value loss grows by orders of
magnitude while the policy metrics (normalised advantages) look normal.
"""
import math, os, sys, time
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recio
from npnn import MLP, Adam, PendulumVec, SB3Csv, classic_args, run_path

p = classic_args(1e-3, ['critic_divergence'])
p.add_argument('--std_lr', type=float, default=1e-2, help='learning rate of log std (faster than the net: the std narrows within the run)')
p.add_argument('--log_std_init', type=float, default=-1.0, help='as SB3 policy_kwargs log_std_init (rl-zoo sets it)')
p.add_argument('--scale_mult', type=float, default=2.0)
a = p.parse_args()

rec = recio.from_env()
RUN = a.run_dir
path = run_path(RUN)
rng = np.random.default_rng(a.seed)
N, T, EPOCHS, MB, GAMMA, LAM, CLIP, VF = 4, 200, 4, 200, 0.9, 0.95, 0.2, 0.5
env = PendulumVec(N, rng)
pi = MLP([3, 32, 32, 1], rng, out_scale=0.1); vf = MLP([3, 32, 32, 1], rng)
log_std = np.full(1, a.log_std_init)
popt = Adam(pi.params(), a.lr); sopt = Adam([log_std], a.std_lr); vopt = Adam(vf.params(), a.lr)
out = SB3Csv(os.path.join(path, 'progress.csv')); rec.snap()
rec.event(ev='session_start', run=RUN, session=a.session, writer='csv', names='sb3', algo='ppo', env='pendulum',
          n_actions=None, max_return=0.0, steps_per_update=N * T, target_kl=None, pid=os.getpid())
LOG2PI = math.log(2 * math.pi)
obs = env.obs(); ep_ret, ep_len = [], []; gstep = 0; rscale = 1.0
for update in range(1, a.updates + 1):
    tu = time.time()
    if a.fault != 'none' and update == a.fault_at:
        rec.event(ev='fault', kind=a.fault, run=RUN, session=a.session, update=update, step=gstep + N * T)
    if a.fault == 'critic_divergence' and update >= a.fault_at:
        rscale *= a.scale_mult
    ob_b = np.zeros((T, N, 3)); ac_b = np.zeros((T, N, 1)); lp_b = np.zeros((T, N)); rw_b = np.zeros((T, N))
    dn_b = np.zeros((T, N)); vl_b = np.zeros((T, N))
    sd = math.exp(log_std[0])
    for t in range(T):
        mu = pi.forward(obs); v = vf.forward(obs)[:, 0]
        act = mu + sd * rng.standard_normal(mu.shape)
        lp = (-0.5 * ((act - mu) / sd) ** 2 - log_std[0] - 0.5 * LOG2PI).sum(1)
        ob_b[t] = obs; ac_b[t] = act; lp_b[t] = lp; vl_b[t] = v
        obs, r, term, done, fin = env.step(act)
        rw_b[t] = r * 0.01 * rscale; dn_b[t] = done  # SB3 zoo scales Pendulum rewards; the bug scales them more
        for R, L in fin:
            ep_ret.append(R); ep_len.append(L)
    gstep += N * T
    last_v = vf.forward(obs)[:, 0]
    adv = np.zeros((T, N)); lastgae = 0
    for t in reversed(range(T)):
        nv = last_v if t == T - 1 else vl_b[t + 1]
        nonterm = 1.0 - dn_b[t]
        delta = rw_b[t] + GAMMA * nv * nonterm - vl_b[t]
        lastgae = delta + GAMMA * LAM * nonterm * lastgae; adv[t] = lastgae
    ret = adv + vl_b
    O, A, LP, ADV, RET, V = (x.reshape((N * T,) + x.shape[2:]) for x in (ob_b, ac_b, lp_b, adv, ret, vl_b))
    ev = 1 - (RET - V).var() / RET.var() if RET.var() > 0 else float('nan')
    kls, cfs, pgl, vll, ls = [], [], [], [], []
    for ep in range(EPOCHS):
        perm = rng.permutation(N * T)
        for s0 in range(0, N * T, MB):
            mb = perm[s0:s0 + MB]; n = len(mb)
            mu = pi.forward(O[mb]); sdv = math.exp(log_std[0])
            z = (A[mb] - mu) / sdv
            nlp = (-0.5 * z ** 2 - log_std[0] - 0.5 * LOG2PI).sum(1)
            ratio = np.exp(nlp - LP[mb])
            ad = (ADV[mb] - ADV[mb].mean()) / (ADV[mb].std() + 1e-8)
            unclipped = (ratio * ad <= np.clip(ratio, 1 - CLIP, 1 + CLIP) * ad) | (np.abs(ratio - 1) <= CLIP)
            pg = -np.minimum(ratio * ad, np.clip(ratio, 1 - CLIP, 1 + CLIP) * ad).mean()
            dlp = np.where(unclipped, -ad * ratio, 0.0) / n  # d pg / d log pi
            gmu = (dlp[:, None] * z / sdv)
            gls = np.array([float((dlp[:, None] * (z ** 2 - 1)).sum())])
            gp, _ = pi.backward(gmu)
            popt.step(gp, max_norm=0.5); sopt.step([gls])
            vp = vf.forward(O[mb])[:, 0]
            vloss = float(((vp - RET[mb]) ** 2).mean())
            gv, _ = vf.backward((2 * VF * (vp - RET[mb]) / n)[:, None])
            vopt.step(gv, max_norm=0.5)
            lr_ = nlp - LP[mb]
            kls.append(float(((np.exp(lr_) - 1) - lr_).mean())); cfs.append(float((np.abs(ratio - 1) > CLIP).mean()))
            pgl.append(float(pg)); vll.append(vloss); ls.append(float(pg + VF * vloss))
    entropy = 0.5 + 0.5 * LOG2PI + float(log_std[0])
    dt = time.time() - tu
    m = {'rollout/ep_rew_mean': float(np.mean(ep_ret[-100:])) if ep_ret else 0.0,
         'rollout/ep_len_mean': float(np.mean(ep_len[-100:])) if ep_len else 0.0,
         'time/fps': float(int(N * T / max(dt, 1e-6))), 'time/iterations': float(update),
         'time/total_timesteps': float(gstep), 'train/approx_kl': float(np.mean(kls)),
         'train/clip_fraction': float(np.mean(cfs)), 'train/clip_range': CLIP, 'train/entropy_loss': -entropy,
         'train/explained_variance': float(ev), 'train/learning_rate': a.lr, 'train/loss': ls[-1],
         'train/n_updates': float(update * EPOCHS), 'train/policy_gradient_loss': float(np.mean(pgl)),
         'train/std': float(math.exp(log_std[0])), 'train/value_loss': float(np.mean(vll))}
    out.write(m); rec.snap()
    rec.truth({'ev': 'log', 'run': RUN, 'session': a.session, 'update': update, 'step': gstep, 'values': m})
    if update % 10 == 0:
        print(f'[{RUN}] upd {update} step {gstep} rew {m["rollout/ep_rew_mean"]:.1f} vloss {m["train/value_loss"]:.4g} '
              f'ev {ev:.2f} kl {m["train/approx_kl"]:.4f} ent {entropy:.3f} dt {dt:.2f}', flush=True)
    left = a.interval - (time.time() - tu)
    if left > 0:
        time.sleep(left)
out.close(); rec.snap()
rec.event(ev='session_end', run=RUN, session=a.session, update=a.updates, step=gstep)
