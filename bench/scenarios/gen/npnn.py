"""Numpy-only building blocks of the family trainers: an MLP with hand-written backprop, Adam, and the
numpy environments (CartPole-v1, Pendulum-v1) and writers they share (SB3 progress.csv, flat metrics JSONL).

No torch: the trainers run on Debian's python3-numpy alone.
"""
import argparse, csv, json, math, os
import numpy as np


class MLP:
    """Fully connected net, tanh (or relu) hidden layers, linear output. forward() keeps what backward() needs."""

    def __init__(self, sizes, rng, act='tanh', out_scale=1.0):
        self.W, self.b = [], []
        for i, (m, n) in enumerate(zip(sizes, sizes[1:])):
            scale = math.sqrt(2.0 / m) if act == 'relu' else math.sqrt(1.0 / m)
            if i == len(sizes) - 2:
                scale *= out_scale
            self.W.append(rng.normal(0, scale, (m, n)))
            self.b.append(np.zeros(n))
        self.act = act
        self.cache = None

    def params(self):
        return self.W + self.b

    def forward(self, x):
        hs = [x]
        h = x
        for i, (W, b) in enumerate(zip(self.W, self.b)):
            z = h @ W + b
            if i < len(self.W) - 1:
                h = np.tanh(z) if self.act == 'tanh' else np.maximum(z, 0)
            else:
                h = z
            hs.append(h)
        self.cache = hs
        return h

    def backward(self, dout):
        """Gradients (same order as params()) of sum(dout * output) for the last forward(); also d/dinput."""
        hs = self.cache
        gW, gb = [None] * len(self.W), [None] * len(self.W)
        d = dout
        for i in reversed(range(len(self.W))):
            gW[i] = hs[i].T @ d
            gb[i] = d.sum(0)
            d = d @ self.W[i].T
            if i > 0:
                d = d * ((1 - hs[i] ** 2) if self.act == 'tanh' else (hs[i] > 0))
        return gW + gb, d

    def copy_from(self, other, tau=1.0):
        for mine, theirs in zip(self.params(), other.params()):
            mine *= (1 - tau)
            mine += tau * theirs


class Adam:
    def __init__(self, params, lr, b1=0.9, b2=0.999, eps=1e-8):
        self.p, self.lr, self.b1, self.b2, self.eps = params, lr, b1, b2, eps
        self.m = [np.zeros_like(x) for x in params]
        self.v = [np.zeros_like(x) for x in params]
        self.t = 0

    def step(self, grads, max_norm=None):
        """One update; returns the gradient's global norm before clipping (as SB3/HF log it)."""
        gn = math.sqrt(sum(float((g * g).sum()) for g in grads))
        if max_norm is not None and gn > max_norm and math.isfinite(gn):
            grads = [g * (max_norm / gn) for g in grads]
        if not math.isfinite(gn):
            return gn  # a non-finite step is skipped
        self.t += 1
        for p, g, m, v in zip(self.p, grads, self.m, self.v):
            m *= self.b1; m += (1 - self.b1) * g
            v *= self.b2; v += (1 - self.b2) * g * g
            mh = m / (1 - self.b1 ** self.t); vh = v / (1 - self.b2 ** self.t)
            p -= self.lr * mh / (np.sqrt(vh) + self.eps)
        return gn


class CartPoleVec:
    """Gym's CartPole-v1, vectorised; episodes end at 500 steps."""
    n_obs, n_act, max_ret = 4, 2, 500.0

    def __init__(s, n, rng):
        s.n, s.rng = n, rng
        s.state = rng.uniform(-.05, .05, (n, 4)); s.t = np.zeros(n, int); s.ret = np.zeros(n)

    def obs(s):
        return s.state.copy()

    def step(s, act):
        x, xd, th, thd = s.state.T
        force = np.where(act == 1, 10.0, -10.0)
        ct, st = np.cos(th), np.sin(th); tm = 1.1; pml = 0.05
        temp = (force + pml * thd ** 2 * st) / tm
        tha = (9.8 * st - ct * temp) / (0.5 * (4 / 3 - 0.1 * ct ** 2 / tm))
        xa = temp - pml * tha * ct / tm
        x = x + .02 * xd; xd = xd + .02 * xa; th = th + .02 * thd; thd = thd + .02 * tha
        s.state = np.stack([x, xd, th, thd], 1); s.t += 1; s.ret += 1
        term = (np.abs(x) > 2.4) | (np.abs(th) > 12 * 2 * math.pi / 360)
        done = term | (s.t >= 500)
        fin = [(s.ret[i], s.t[i]) for i in np.where(done)[0]]
        if done.any():
            k = done.sum(); s.state[done] = s.rng.uniform(-.05, .05, (k, 4)); s.t[done] = 0; s.ret[done] = 0
        return s.obs(), np.ones(s.n), term, done, fin


class PendulumVec:
    """Gym's Pendulum-v1 (torque in [-2, 2], 200-step episodes, reward -(θ² + 0.1 θ̇² + 0.001 u²)), vectorised."""
    n_obs, n_act, max_ret = 3, 1, 0.0

    def __init__(s, n, rng):
        s.n, s.rng = n, rng
        s.th = rng.uniform(-math.pi, math.pi, n); s.thd = rng.uniform(-1, 1, n)
        s.t = np.zeros(n, int); s.ret = np.zeros(n)

    def obs(s):
        return np.stack([np.cos(s.th), np.sin(s.th), s.thd], 1)

    def step(s, u):
        u = np.clip(u.reshape(-1), -2.0, 2.0)
        thn = ((s.th + math.pi) % (2 * math.pi)) - math.pi
        r = -(thn ** 2 + .1 * s.thd ** 2 + .001 * u ** 2)
        s.thd = np.clip(s.thd + (3 * 10.0 / 2 * np.sin(s.th) + 3.0 * u) * .05, -8, 8)
        s.th = s.th + s.thd * .05
        s.t += 1; s.ret += r
        done = s.t >= 200
        fin = [(s.ret[i], s.t[i]) for i in np.where(done)[0]]
        if done.any():
            k = done.sum()
            s.th[done] = s.rng.uniform(-math.pi, math.pi, k); s.thd[done] = s.rng.uniform(-1, 1, k)
            s.t[done] = 0; s.ret[done] = 0
        return s.obs(), r, np.zeros(s.n, bool), done, fin


class SB3Csv:
    """SB3's progress.csv as its CSVOutputFormat writes it: a header of every key (sorted) from the first dump,
    one row per dump, flushed; opened with "w". Every key is logged from the first row, so the header never widens."""

    def __init__(self, path):
        self.f = open(path, 'w', newline='')
        self.w = None

    def write(self, m):
        if self.w is None:
            self.w = csv.DictWriter(self.f, fieldnames=sorted(m))
            self.w.writeheader()
        self.w.writerow(m)
        self.f.flush()

    def close(self):
        self.f.close()


class FlatJsonl:
    """One JSON object per line: {"step": N, "<tag>": value, ...}, appended and flushed (metrics.jsonl)."""

    def __init__(self, path):
        self.f = open(path, 'a')

    def write(self, step, m):
        self.f.write(json.dumps({'step': step, **m}) + '\n')
        self.f.flush()

    def close(self):
        self.f.close()


def run_path(run_dir):
    root = os.environ.get('RLREC_ROOT', '.')
    p = os.path.join(root, run_dir)
    os.makedirs(p, exist_ok=True)
    return p


def classic_args(lr, faults):
    """The arguments every classic family trainer takes (its own are added to the parser it returns)."""
    p = argparse.ArgumentParser()
    p.add_argument('--run_dir', required=True)
    p.add_argument('--updates', type=int, default=90)
    p.add_argument('--interval', type=float, default=1.0)
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--session', default='s1')
    p.add_argument('--lr', type=float, default=lr)
    p.add_argument('--fault', default='none', choices=['none', *faults])
    p.add_argument('--fault_at', type=int, default=10 ** 9)
    return p
