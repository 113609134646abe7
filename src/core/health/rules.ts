// The per-tag health rules in the order the engine runs them: the policy, learning-progress, system, critic and
// response-length families (each its own module; their shared shape is point-rule.ts).

import type { PointRule } from './point-rule';
import { clipBand, entropyCollapse, importanceRatio, klAboveTarget } from './policy-rules';
import {
  gradNormSpike,
  learningStagnation,
  nonFinite,
  rewardPlateau,
  rewardVariance,
  truncationRising,
} from './progress-rules';
import { gpuIdle, gpuMemoryHigh, lowThroughput, memoryHigh } from './system-rules';
import { VALUE_RULES } from './value-rules';
import { LLM_RULES } from './llm-rules';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- heterogeneous rule states
export const POINT_RULES: readonly PointRule<any>[] = [
  nonFinite,
  klAboveTarget,
  entropyCollapse,
  clipBand,
  gradNormSpike,
  rewardPlateau,
  learningStagnation,
  rewardVariance,
  truncationRising,
  importanceRatio,
  lowThroughput,
  gpuIdle,
  memoryHigh,
  gpuMemoryHigh,
  ...VALUE_RULES,
  ...LLM_RULES,
];
