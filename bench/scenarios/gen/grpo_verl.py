#!/usr/bin/env python3
"""Toy GRPO with verl's metric names (numpy only): a tabular "language model" (next-token logits per prompt and
position over a 16-token vocabulary, EOS = 15, at most --max_len tokens) samples 8 responses for each of 8 prompts
per step; rule-based rewards (the prompt's target token, a length format bonus); group-normalised advantages;
clipped surrogate; KL to the frozen reference in the loss (verl use_kl_loss, low_var_kl) — verl's actor/kl_loss.
Logs verl's names (actor/entropy, actor/ppo_kl, actor/kl_loss, actor/pg_loss, actor/pg_clipfrac, actor/grad_norm,
actor/lr, critic/score/mean, critic/rewards/mean, response_length/mean|max|min|clip_ratio, ...) one flat JSON object
per step to metrics.jsonl ({"step": N, "actor/entropy": ...}: verl's file logger nests them under "data"; the flat
form is what rlwatch reads today without a prefix).
Faults (at step --fault_at):
  response_length_collapse  a length-penalty units bug (per token --len_penalty instead of 1/100 of it): the policy
                            learns to answer with EOS at once, response_length/mean falls > 5x in a few steps
  reward_hacking            the reward gains a per-token bonus for a filler token (a reward model's blind spot): the
                            reward rises fast while responses run to the maximum length and the KL grows > 10x
"""
import argparse, os, sys, time
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recio
from npnn import FlatJsonl, run_path

p = argparse.ArgumentParser()
p.add_argument('--run_dir', required=True)
p.add_argument('--steps', type=int, default=70)
p.add_argument('--interval', type=float, default=1.5)
p.add_argument('--seed', type=int, default=1)
p.add_argument('--session', default='s1')
p.add_argument('--lr', type=float, default=5.0)
p.add_argument('--max_grad_norm', type=float, default=100.0)
p.add_argument('--shared_lr', type=float, default=3.0)
p.add_argument('--kl_coef', type=float, default=0.01)
p.add_argument('--max_len', type=int, default=16)
p.add_argument('--fault', default='none', choices=['none', 'response_length_collapse', 'reward_hacking'])
p.add_argument('--fault_at', type=int, default=10 ** 9)
p.add_argument('--len_penalty', type=float, default=0.3)
p.add_argument('--filler_bonus', type=float, default=0.25)
a = p.parse_args()

rec = recio.from_env()
RUN = a.run_dir
path = run_path(RUN)
rng = np.random.default_rng(a.seed)
V, EOS, L, NP, B, G, FILLER = 16, 15, a.max_len, 8, 8, 8, 7
theta = rng.normal(0, 0.3, (NP, L, V))
theta[:, :, EOS] += np.linspace(-1.5, 4.0, L)[None, :]  # "pretrained": answers of ~9 tokens
shared = np.zeros(V)  # a bias over the vocabulary shared by every prompt and position (an LM's shared weights)
ref = theta.copy()
CLIP = 0.2


def softmax(z):
    z = z - z.max(-1, keepdims=True); e = np.exp(z); return e / e.sum(-1, keepdims=True)


def generate(prompts):
    n = len(prompts); toks = np.full((n, L), EOS); mask = np.zeros((n, L)); alive = np.ones(n, bool)
    probs = softmax(theta[prompts] + shared)  # (n, L, V): next-token distribution per position
    for pos in range(L):
        c = probs[:, pos].cumsum(1); t = (rng.random((n, 1)) < c).argmax(1)
        toks[:, pos] = np.where(alive, t, EOS); mask[:, pos] = alive
        alive = alive & (t != EOS)
    return toks, mask, alive  # still alive after max_len tokens: truncated


def reward(prompt, toks, length, ended, fault):
    tgt = (prompt * 2 + 1) % 15
    content = toks[:length]
    r = (float((content == tgt).sum()) / length if length else 0.0) + (0.5 if ended and 4 <= length <= 10 else 0.0)
    if fault == 'response_length_collapse':
        r -= a.len_penalty * length
    elif fault == 'reward_hacking':
        r += a.filler_bonus * float((content == FILLER).sum())
    return r


out = FlatJsonl(os.path.join(path, 'metrics.jsonl')); rec.snap()
rec.event(ev='session_start', run=RUN, session=a.session, writer='jsonl', names='verl', algo='grpo', env='toy-lm',
          n_actions=V, max_return=None, steps_per_update=1, target_kl=None, pid=os.getpid(), max_len=L)
for step in range(1, a.steps + 1):
    tu = time.time()
    if a.fault != 'none' and step == a.fault_at:
        rec.event(ev='fault', kind=a.fault, run=RUN, session=a.session, update=step, step=step)
    fault = a.fault if step >= a.fault_at else 'none'
    prompts = np.repeat(rng.integers(0, NP, B), G)
    toks, mask, truncated = generate(prompts)
    lengths = mask.sum(1).astype(int); ended = ~truncated
    content_len = np.where(ended, lengths - 1, lengths)
    r = np.array([reward(prompts[i], toks[i], content_len[i], ended[i], fault) for i in range(B * G)])
    rg = r.reshape(B, G); adv = ((rg - rg.mean(1, keepdims=True)) / (rg.std(1, keepdims=True) + 1e-6)).reshape(-1)
    pos = np.broadcast_to(np.arange(L), toks.shape)
    logp_all = np.log(softmax(theta[prompts] + shared) + 1e-12)
    old_lp = np.take_along_axis(logp_all, toks[..., None], -1)[..., 0]
    ref_lp = np.take_along_axis(np.log(softmax(ref[prompts]) + 1e-12), toks[..., None], -1)[..., 0]
    msum = max(mask.sum(), 1)
    kls, cfs, pgs, ppokl, gns, ents = [], [], [], [], [], []
    for it in range(2):
        pr = softmax(theta[prompts] + shared); lp_all = np.log(pr + 1e-12)
        lp = np.take_along_axis(lp_all, toks[..., None], -1)[..., 0]
        ratio = np.exp(lp - old_lp)
        A = adv[:, None]
        s1, s2 = ratio * A, np.clip(ratio, 1 - CLIP, 1 + CLIP) * A
        active = (s1 <= s2) | (np.abs(ratio - 1) <= CLIP)
        d = ref_lp - lp
        kl_tok = np.exp(d) - d - 1  # low_var_kl
        # d(loss)/d(log p of the sampled token), per token, masked mean
        g_lp = (np.where(active, -A * ratio, 0.0) + a.kl_coef * (1 - np.exp(d))) * mask / msum
        onehot = np.zeros_like(pr); np.put_along_axis(onehot, toks[..., None], 1.0, -1)
        glog = g_lp[..., None] * (onehot - pr)  # (n, L, V)
        grad = np.zeros_like(theta)
        np.add.at(grad, prompts, glog)
        gsh = glog.sum((0, 1))
        gn = float(np.sqrt((grad * grad).sum() + (gsh * gsh).sum())); gns.append(gn)
        c = min(1.0, a.max_grad_norm / max(gn, 1e-12))  # verl's grad clip
        theta -= a.lr * c * grad; shared -= a.shared_lr * c * gsh  # SGD
        pgs.append(float((-np.minimum(s1, s2) * mask).sum() / msum)); kls.append(float((kl_tok * mask).sum() / msum))
        ppokl.append(float((-(lp - old_lp) * mask).sum() / msum))
        cfs.append(float(((~active | (np.abs(ratio - 1) > CLIP)) * mask).sum() / msum))
        ents.append(float((-(pr * lp_all).sum(-1) * mask).sum() / msum))
    m = {'actor/entropy': float(np.mean(ents)), 'actor/grad_norm': float(np.mean(gns)),
         'actor/kl_coef': a.kl_coef, 'actor/kl_loss': float(np.mean(kls)), 'actor/lr': a.lr,
         'actor/pg_clipfrac': float(np.mean(cfs)), 'actor/pg_loss': float(np.mean(pgs)),
         'actor/ppo_kl': float(np.mean(ppokl)),
         'critic/advantages/max': float(adv.max()), 'critic/advantages/mean': float(adv.mean()),
         'critic/advantages/min': float(adv.min()), 'critic/rewards/mean': float(r.mean()),
         'critic/score/max': float(r.max()), 'critic/score/mean': float(r.mean()), 'critic/score/min': float(r.min()),
         'prompt_length/mean': 12.0, 'response_length/clip_ratio': float(truncated.mean()),
         'response_length/max': float(lengths.max()), 'response_length/mean': float(lengths.mean()),
         'response_length/min': float(lengths.min()), 'timing_s/step': round(time.time() - tu, 4),
         'training/epoch': 0.0, 'training/global_step': float(step)}
    out.write(step, m); rec.snap()
    rec.truth({'ev': 'log', 'run': RUN, 'session': a.session, 'update': step, 'step': step, 'values': m})
    if step % 10 == 0:
        print(f'[{RUN}] step {step} score {m["critic/score/mean"]:.3f} len {m["response_length/mean"]:.2f} '
              f'trunc {m["response_length/clip_ratio"]:.2f} kl {m["actor/kl_loss"]:.4f} ent {m["actor/entropy"]:.3f}',
              flush=True)
    left = a.interval - (time.time() - tu)
    if left > 0:
        time.sleep(left)
out.close(); rec.snap()
rec.event(ev='session_end', run=RUN, session=a.session, update=a.steps, step=a.steps)
