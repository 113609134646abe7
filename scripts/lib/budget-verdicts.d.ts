// Types of scripts/lib/budget-verdicts.js (the performance budget's verdicts) for the tests that import it.
export interface BudgetFigure {
  key: string;
  what: string;
  bench: string;
  unit: string;
  budget: number;
  better?: 'higher';
  gated?: boolean;
  last?: number;
}
export interface Budget {
  gate: number;
  scale?: { key: string; last: number };
  figures: BudgetFigure[];
}
export interface Verdict extends BudgetFigure {
  value: number | null;
  limit: number;
  ok: boolean;
  gated: boolean;
}
export function machineScale(budget: Budget, measured: Map<string, number>): number | null;
export function budgetVerdicts(
  budget: Budget,
  figures: BudgetFigure[],
  measured: Map<string, number>,
): Verdict[];
