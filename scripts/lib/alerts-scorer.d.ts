// Types for alerts-scorer.js (plain JS so scripts/bench.js can import it without a build).
export const sharedScenarios: string;
export const scorerScript: string;
export const sharedRecordings: string;
export const ownRecordings: string;
export const monitorCmd: string;
export function findPython(): string | null;
export function missingPrerequisite(): string | null;
export function recordingsIn(dir: string): string[];
export function allRecordings(): string[];

/** score.py's JSON summary (its last line); only the fields the gate reads are typed. */
export interface ScoreSummary {
  recall: number | null;
  incidents: number;
  detected: number;
  late: number;
  missed: number;
  false_alarms: number;
  citation_errors: number;
  duplicates: number;
  truncated_by_max_wall?: boolean;
  [key: string]: unknown;
}

export function runScorer(options: {
  recordings: string[];
  out?: string;
  echo?: boolean;
  maxWall?: number;
  extraArgs?: string[];
}): Promise<{ status: number; output: string; summary: ScoreSummary | null }>;
export function parseSummary(output: string): ScoreSummary | null;
export function gateFailures(summary: ScoreSummary | null): string[];
