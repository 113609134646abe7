// Which world a run belongs to (classic RL or LLM RLHF), from its tags and config, so wording and advice fit it.

import { classifyTag } from './classify';
import { ROLES, type Role } from './roles';

/** Classic RL (SB3, Dreamer, DQN…) or LLM RLHF (TRL, verl, OpenRLHF); unknown runs get classic wording. */
export type RunScope = 'classic' | 'llm';

/** Roles that only an LLM trainer logs: a run with any of them is LLM RLHF. */
const LLM_ROLES: ReadonlySet<Role> = new Set<Role>([
  'response_truncation',
  'response_length',
  'generation_throughput',
  'sampling_temperature',
  'importance_ratio',
]);

/** Tag names of the LLM trainers (TRL `objective/kl`, `completions/*`; verl `actor/ppo_kl`, `critic/*`; OpenRLHF). */
const LLM_TAG =
  /(^|\/)(objective\/(kl|entropy|rlhf_reward|scores)|actor\/(ppo_kl|pg_clipfrac|entropy_loss)|critic\/(rewards|score|advantages)|completions?\/|response_length|prompt_length|num_tokens|rewards\/[^/]+\/(mean|std)$|frac_reward_zero_std|policy\/approxkl_avg)/i;

/** Config keys only an LLM trainer has (leaf names, lower case). */
const LLM_CONFIG_KEYS: ReadonlySet<string> = new Set([
  'model_name_or_path',
  'max_prompt_length',
  'max_completion_length',
  'max_new_tokens',
  'num_generations',
  'response_length',
  'max_response_length',
  'tokenizer',
  'tokenizer_name',
]);

/** True when the tag alone shows an LLM RLHF run. */
export function isLlmTag(tag: string): boolean {
  if (LLM_TAG.test(tag)) return true;
  const c = classifyTag(tag);
  return c !== null && LLM_ROLES.has(c.role);
}

/** Whether any key of the config (at any depth) is one only an LLM trainer has. */
function llmConfig(config: unknown, depth = 0): boolean {
  if (depth > 8 || config === null || typeof config !== 'object' || Array.isArray(config)) return false;
  return Object.entries(config as Record<string, unknown>).some(
    ([k, v]) => LLM_CONFIG_KEYS.has(k.toLowerCase()) || llmConfig(v, depth + 1),
  );
}

/** Pure: the run's scope from its tags and its config. */
export function runScope(tags: Iterable<string>, config: unknown): RunScope {
  for (const t of tags) if (isLlmTag(t)) return 'llm';
  return llmConfig(config) ? 'llm' : 'classic';
}

/** A role's description and advice in the run's world (the catalog's LLM wording, or its classic variant). */
export function roleText(role: Role, scope: RunScope): { description: string; advice: string | null } {
  const spec = ROLES[role];
  const classic = scope === 'classic' ? spec.classic : undefined;
  return {
    description: classic?.description ?? spec.description,
    advice: classic?.advice !== undefined ? classic.advice : spec.advice,
  };
}
