// Public API of the metric catalog (pure TS: imported by core and the renderer).

export { classifyTag, groupOf, normaliseTag } from './classify';
export type { TagClass } from './classify';
export { GROUPS, GROUP_LABELS, ROLES, TRAINING_GROUPS, boundDrawn, boundValue } from './roles';
export type { Bound, HealthyRange, MetricGroup, Role, RoleSpec, ThresholdKey, Transform } from './roles';
export { isLlmTag, roleText, runScope } from './scope';
export type { RunScope } from './scope';
