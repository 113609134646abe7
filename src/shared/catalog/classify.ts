// Maps a logged tag name to its catalog role: exact aliases first, then normalised patterns; memoised per tag.

import { ROLES, type HealthyRange, type MetricGroup, type Role, type Transform } from './roles';
import { isSampleMeanTag, sampleMeanColumn } from '../samples';
import { writerBase } from '../writer-tag';

export interface TagClass {
  role: Role;
  group: MetricGroup;
  description: string;
  healthy: HealthyRange | null;
  advice: string | null;
  transform: Transform;
}

type Alias = readonly [Role, Transform?];

/**
 * Exact names (after lower-casing) in the conventions of the seeds and the real writers. Listed
 * exactly because the same leaf means different things per writer: SB3 `train/entropy_loss` is
 * −entropy while verl `actor/entropy_loss` is the entropy itself (seed 002).
 */
const ALIASES: Record<string, Alias> = {
  // seed 000 TensorBoard
  'train/loss': ['loss'],
  'train/policyloss': ['policy_loss'],
  'train/valueloss': ['value_loss'],
  'train/klpenalty': ['kl_penalty'],
  'train/avgreward': ['reward'],
  'train/rewardstd': ['reward_std'],
  'train/rewardmin': ['reward_min'],
  'train/rewardmax': ['reward_max'],
  'train/rewardvariance': ['reward_variance'],
  'epoch/avgreward': ['reward'],
  'epoch/avgloss': ['loss'],
  'epoch/rewardvariance': ['reward_variance'],
  'epoch/rewardtrend': ['reward_trend'],
  'epoch/losstrend': ['loss_trend'],
  'performance/generation_tokenspersec': ['generation_throughput'],
  'performance/generation_avgtokenspersec': ['generation_throughput'],
  'performance/generation_p99tokenspersec': ['generation_throughput'],
  'performance/generation_time': ['timing'],
  'performance/backprop_tokenspersec': ['backprop_throughput'],
  'performance/backprop_avgtokenspersec': ['backprop_throughput'],
  'performance/backprop_p99tokenspersec': ['backprop_throughput'],
  'system/cpu_percent': ['cpu_pct'],
  'system/memory_percent': ['memory_pct'],
  'system/gpu_memory_percent': ['gpu_memory_pct'],
  'system/gpu_utilization': ['gpu_util'],
  // seed 001 W&B
  'rewards/total_mean': ['reward'],
  'rewards/rubric_mean': ['reward'],
  // seed 002 verl
  'actor/entropy_loss': ['entropy'],
  'actor/entropy': ['entropy'],
  'actor/pg_loss': ['policy_loss'],
  'actor/pg_clipfrac': ['clip_fraction'],
  'actor/ppo_kl': ['kl'],
  // verl's KL-in-loss term before its coefficient (`use_kl_loss`): the KL to the reference itself.
  'actor/kl_loss': ['kl'],
  'actor/kl_coef': ['kl_coef'],
  'actor/is_ratio/mean': ['importance_ratio'],
  'actor/grad_norm': ['grad_norm'],
  'actor/lr': ['learning_rate'],
  'critic/kl': ['kl'],
  'critic/kl_coeff': ['kl_coef'],
  'critic/score/mean': ['reward'],
  'critic/rewards/mean': ['reward'],
  'critic/vf_explained_var': ['explained_variance'],
  'critic/vf_loss': ['value_loss'],
  'critic/grad_norm': ['grad_norm'],
  'response_length/clip_ratio': ['response_truncation'],
  'response_length/mean': ['response_length'],
  'completion/truncated_frac': ['response_truncation'],
  'adaptive_window/success_rate': ['success_rate'],
  // seed 003 training_metrics.json / csv
  loss: ['loss'],
  reward: ['reward'],
  kl_divergence: ['kl'],
  entropy: ['entropy'],
  learning_rate: ['learning_rate'],
  lr: ['learning_rate'],
  samples_per_second: ['fps'],
  epoch_time: ['timing'],
  // seed 004 PPO stack
  approx_kl: ['kl'],
  clipfrac: ['clip_fraction'],
  pg_grad_norm: ['grad_norm'],
  current_temperature: ['sampling_temperature'],
  temp_current_temperature: ['sampling_temperature'],
  temperature: ['sampling_temperature'],
  balance_penalty: ['balance_penalty'],
  reward_mean: ['reward'],
  // Stable-Baselines3
  'train/approx_kl': ['kl'],
  'train/clip_fraction': ['clip_fraction'],
  'train/clip_range': ['clip_range'],
  'train/entropy_loss': ['entropy', 'negate'],
  'train/explained_variance': ['explained_variance'],
  'train/learning_rate': ['learning_rate'],
  'train/policy_gradient_loss': ['policy_loss'],
  'train/policy_loss': ['policy_loss'],
  'train/value_loss': ['value_loss'],
  'rollout/ep_rew_mean': ['reward'],
  'rollout/ep_len_mean': ['episode_length'],
  'time/fps': ['fps'],
  'eval/mean_reward': ['reward'],
  'eval/mean_ep_length': ['episode_length'],
  // TRL
  kl: ['kl'],
  'objective/kl': ['kl'],
  'objective/entropy': ['entropy'],
  'clip_ratio/region_mean': ['clip_fraction'],
  'completions/clipped_ratio': ['response_truncation'],
  'completions/mean_length': ['response_length'],
  completion_length: ['response_length'],
  // OpenRLHF
  response_length: ['response_length'],
  reward_std: ['reward_std'],
  grad_norm: ['grad_norm'],
  explained_variance: ['explained_variance'],
  vf_explained_var: ['explained_variance'],
  // W&B system stats
  'system/memory': ['memory_pct'],
  'system/cpu': ['cpu_pct'],
  // Progress counters (HF Trainer, SB3, training_progress.json, W&B), found as a tag's last path part too.
  epoch: ['progress'],
  epochs: ['progress'],
  episode: ['progress'],
  episodes: ['progress'],
  step: ['progress'],
  _step: ['progress'],
  global_step: ['progress'],
  current_step: ['progress'],
  max_steps: ['progress'],
  total_steps: ['progress'],
  n_updates: ['progress'],
  iterations: ['progress'],
  total_timesteps: ['progress'],
  num_timesteps: ['progress'],
  total_flos: ['progress'],
  num_tokens: ['progress'],
  num_train_epochs: ['progress'],
  training_sessions: ['progress'],
  completed_chunks: ['progress'],
  total_chunks: ['progress'],
  requests_done: ['progress'],
  total_requests: ['progress'],
};

/**
 * Patterns on the normalised tag (lower case, `-`/space/`.` → `_`), for tags no alias names:
 * multi-algorithm prefixes (`PPO/Episode/reward`), per-reward-function names (`rewards/x_mean`),
 * per-GPU W&B stats (`system/gpu.0.gpu`). Order matters: the first match wins.
 */
const PATTERNS: readonly (readonly [RegExp, Role, Transform?])[] = [
  [/^system\/gpu_(process_)?\d+_gpu$/, 'gpu_util'],
  [/^system\/gpu_(process_)?\d+_memoryallocated$/, 'gpu_memory_pct'],
  [/^system\/gpu_(process_)?\d+_temp$/, 'gpu_temperature'],
  [/^system\/.*gpu.*util/, 'gpu_util'],
  [/^system\/.*gpu.*mem.*(percent|pct)/, 'gpu_memory_pct'],
  [/^system\/.*gpu.*temp/, 'gpu_temperature'],
  [/(^|\/|_)approx_?kl$/, 'kl'],
  [/(^|\/)(ppo_)?kl(_divergence)?(\/mean|_mean)?$/, 'kl'],
  [/(^|\/)entropy(\/mean|_mean)?$/, 'entropy'],
  [/(^|\/)(pg_)?clip_?frac(tion)?(\/mean|_mean)?$/, 'clip_fraction'],
  [/^clip_ratio\//, 'clip_fraction_detail'],
  [/(^|\/)(pg_|actor_|policy_)?grad_?norm(\/mean|_mean)?$/, 'grad_norm'],
  [/(^|\/)is_ratio(\/mean|_mean)?$/, 'importance_ratio'],
  [/(^|\/)(importance|ratio)(_ratio)?_mean$/, 'importance_ratio'],
  [/(truncated|clipped)_(frac|ratio)$/, 'response_truncation'],
  // (not `prompt_length/*`: the prompt's length is no response's)
  [/^(response_length|completions?|tokens)\//, 'response_length'],
  [/(^|\/)(std_reward|reward_?std)$/, 'reward_std'],
  [/(^|\/)reward_?var(iance)?$/, 'reward_variance'],
  [/^(rewards|criteria|final)\/.*_(mean|recent_mean)$/, 'reward'],
  [/^rewards\/[^/]+\/mean$/, 'reward'],
  [/(^|\/)(mean_|avg_?|ep(isode)?_)?(rewards?|rew)(_mean)?$/, 'reward'],
  [/(^|\/)(cumulative_)?success_rate(_ema)?$/, 'success_rate'],
  [/(^|\/)(mean_)?ep(isode)?_len(gth)?(_mean)?$/, 'episode_length'],
  [/(^|\/)(policy|pg|actor)_?loss$/, 'policy_loss'],
  [/(^|\/)(value|vf|critic)_?loss$/, 'value_loss'],
  // a Q-learner's critic loss: CleanRL DQN `losses/td_loss`, SAC `losses/qf1_loss`
  [/(^|\/)(td|qf\d?)_?loss$/, 'value_loss'],
  // the mean Q estimate: CleanRL DQN `losses/q_values`, SAC `losses/qf1_values`
  [/(^|\/)(q|qf\d?)_?values?(_mean)?$/, 'value_estimate'],
  [/(^|\/)(total_|avg_?)?loss$/, 'loss'],
  [/(^|\/)(learning_rate|lr)$/, 'learning_rate'],
  [/tokens_?per_?sec/, 'generation_throughput'],
  [/^timing_(s|per_token_ms)\//, 'timing'],
  [/(^|\/)memory_?percent$/, 'memory_pct'],
  [/(^|\/)cpu_?percent$/, 'cpu_pct'],
];

/** Lower case; `.`, `-` and spaces become `_` so `System/GPU-Util` and `system/gpu.0.gpu` normalise alike. */
export function normaliseTag(tag: string): string {
  return tag
    .trim()
    .toLowerCase()
    .replace(/[.\s-]+/g, '_');
}

function build(role: Role, transform: Transform = 'identity'): TagClass {
  const spec = ROLES[role];
  return {
    role,
    group: spec.group,
    description: spec.description,
    healthy: spec.healthy,
    advice: spec.advice,
    transform,
  };
}

/**
 * The role by the metric's own name: the whole tag as an alias, then its trailing path parts, longest
 * first (`history/rollout/ep_rew_mean` is SB3's `rollout/ep_rew_mean` kept in a history; `train/epoch`
 * is the `epoch` counter, whatever namespace a writer puts it in), then the patterns. A bare
 * `entropy_loss` is no alias (its sign differs per writer), so `x/entropy_loss` falls to the loss pattern.
 */
function lookup(tag: string): TagClass | null {
  const lower = tag.trim().toLowerCase();
  const direct = ALIASES[lower] ?? ALIASES[normaliseTag(tag)];
  if (direct) return build(direct[0], direct[1]);
  const norm = normaliseTag(tag);
  for (let slash = norm.indexOf('/'); slash >= 0; slash = norm.indexOf('/', slash + 1)) {
    const a = ALIASES[norm.slice(slash + 1)];
    if (a) return build(a[0], a[1]);
  }
  for (const [re, role, transform] of PATTERNS) {
    if (re.test(norm)) return build(role, transform);
  }
  return null;
}

const memo = new Map<string, TagClass | null>();
const MEMO_LIMIT = 50_000;

/** The role of a tag, or null when the catalog does not know it or it is derived from samples (it still charts, with
 * no rule). */
export function classifyTag(tag: string): TagClass | null {
  const hit = memo.get(tag);
  if (hit !== undefined) return hit;
  // Another writer's series (`loss (writer 2)`) is the same metric. A sample source's per-step means
  // (`samples/SOURCE/mean/reward`) have no role: they chart, and no rule judges them (a run logging its reward as a
  // scalar too would be judged twice; docs/ARCHITECTURE.md, Samples).
  const base = writerBase(tag);
  const c = isSampleMeanTag(base) ? null : lookup(base);
  // A bound on the memo keeps a pathological writer (unique tag per step) from growing it forever.
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(tag, c);
  return c;
}

/**
 * Groups of the namespaces the seeds define, for tags without a role (verl `actor/*`, `critic/*`,
 * `timing_s/*`; TRL `rewards/*`…). Generic namespaces (`train/`, `epoch/`, `eval/`) say nothing about
 * what a metric is: their unknown tags go to Other (the namespace still makes a section there).
 */
const PREFIX_GROUPS: readonly (readonly [RegExp, MetricGroup])[] = [
  [/^(system|sys)\//, 'System'],
  [
    /^(performance|timing_s|timing_per_token_ms|time|response_length|prompt_length|tokens|completions?)\//,
    'Performance',
  ],
  [/^(rewards?|critic|criteria|final|epoch\/.*reward|scoring|difficulty)\//, 'Reward'],
  [/^(actor|policy|objective)\//, 'Policy'],
];

const groupMemo = new Map<string, MetricGroup>();

/** The chart group of a tag: its role's group, else its seed namespace's group, else Other. A sample source's mean
 * goes with the metric its column is (`…/mean/reward` beside the rewards; a mean length beside response lengths).
 * Kept per tag as classifyTag's answer is: the alert service asks for every delta (2,500 a second with 50 runs × 50
 * tags), and working it out runs the catalog's patterns (~2–6 µs) (#36). */
export function groupOf(tag: string): MetricGroup {
  const hit = groupMemo.get(tag);
  if (hit !== undefined) return hit;
  const g = groupOfUncached(tag);
  if (groupMemo.size >= MEMO_LIMIT) groupMemo.clear();
  groupMemo.set(tag, g);
  return g;
}

function groupOfUncached(tag: string): MetricGroup {
  const derived = sampleMeanColumn(writerBase(tag));
  if (derived) return derived.chars ? ROLES.response_length.group : groupOf(derived.column);
  const c = classifyTag(tag);
  if (c) return c.group;
  const norm = normaliseTag(writerBase(tag));
  for (const [re, g] of PREFIX_GROUPS) if (re.test(norm)) return g;
  return 'Other';
}
