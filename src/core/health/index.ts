// Public API of the health rules and alert engine.

export { alertId, parseAlertId } from './alert-id';
export type { AlertKey } from './alert-id';
export { HealthEngine } from './engine';
export type { HealthEngineOptions } from './engine';
export {
  DEFAULT_THRESHOLDS,
  explicitNames,
  flattenConfig,
  resolveThresholds,
  setValues,
  thresholdTable,
} from './thresholds';
export type { ResolvedThresholds, ThresholdName, ThresholdSource, Thresholds } from './thresholds';
export { RULE_ADVICE, ruleAdvice } from './advice';
export { JOB_RULE_TITLES, RULE_TITLES, ruleTitle } from './rule-titles';
export { RULE_THRESHOLDS, thresholdsOfRule } from './rule-thresholds';
export { COMBINED_RULES } from './combined-rules';
export type { CombinedRule } from './combined-rules';
export { POINT_RULES } from './rules';
export type { PointRule, RuleContext } from './point-rule';
export { RULE_IDS } from './types';
export type { Alert, AlertSink, AlertTransition, Level, RuleId, Severity } from './types';
