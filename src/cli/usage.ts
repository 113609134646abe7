// Help text, flag parsing and the usage error every command reports the same way (exit 2, one line on stderr).

import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

export const HELP = `rlwatch — watch RL / RLHF training runs: live charts, system sampling, health alerts.

Usage:
  rlwatch open [DIR]               open the desktop app on DIR (the live demo when omitted);
                                   where no window can open, serve the same UI on 127.0.0.1
  rlwatch serve DIR [--host H] [--port P] [--poll] [--remote URL]... [JOB] [METRICS]
                                   serve the UI for DIR to a browser (127.0.0.1, token in the URL);
                                   --remote (or RLWATCH_REMOTES, space-separated) adds the runs of
                                   another rlwatch at the URL it printed; RLWATCH_TOKEN fixes the token
  rlwatch agent DIR [--host H] [--port P] [--poll] [JOB] [METRICS]
                                   serve DIR's API (the same URL and token as serve) and /metrics,
                                   no UI: a node that a remote serve or Prometheus reads
  rlwatch demo [DIR] [--steps N] [--rate HZ] [--serve]
                                   write a simulated PPO run into DIR (a new temp folder when
                                   omitted) until N steps or Ctrl-C; --serve also serves it
  rlwatch inspect PATH [--json]    summarise the runs in a folder (or one file): sources, errors,
                                   per-tag count/steps/last/min/max
  rlwatch inspect PATH --table [--json|--csv] [--columns A,B]
                                   the runs table: a row per run (status, worst active alert,
                                   format, steps, time, key metrics) and each config key that
                                   differs between runs as a column; on a terminal it fits the
                                   width (config columns fold into a "+N config columns" line),
                                   piped it is whole; --columns: those columns (id or label)
  rlwatch inspect PATH --table --aggregate METRIC [--by KEY] [--task KEY] [--min X --max Y]
                 [--gamma G] [--reps N] [--seed S] [--compare X --compare Y] [--csv] [--out FOLDER]
                                   aggregate scores as rliable reports them (Agarwal et al. 2021):
                                   per group (seed groups, or each value of config KEY) the IQM,
                                   mean, median and optimality gap of the runs' last METRIC value
                                   (a table column such as reward.last, or a tag) with 95 %
                                   stratified bootstrap CIs (runs resampled within each --task;
                                   2000 resamples, seed 0); --min/--max normalise (γ = 1;
                                   a negative one as --min=-500);
                                   --compare: P(X > Y) (Mann–Whitney U); --csv: tidy CSV;
                                   --out: aggregate.csv, profile.csv and the performance
                                   profile profile.png in FOLDER (never in PATH)
  rlwatch watch [PATH] [--remote URL]... [--json|--verbose] [--exit-on critical] [--poll] [--no-system]
                                   print updates, progress, system samples and alerts as they
                                   happen: a line per run per update (step, reward, KL, entropy,
                                   loss, status), alerts and status changes at once (coloured on
                                   a terminal unless NO_COLOR), the system every 10 s; --verbose:
                                   a line per tag and every system sample; --json: NDJSON (all
                                   of it); --exit-on critical exits 3 on the
                                   first critical alert; --remote also follows another rlwatch
                                   (its runs, alerts and link state) and the jobs across them
  rlwatch export PATH --out FOLDER [--csv] [--json] [--png] [--svg] [--runs REGEX] [--tags REGEX]
                 [--width W --height H --scale S] [--paper] [--no-health-bands] [--theme light|dark]
                 [--smoothing X]
                 [--log-y | --log-y-tags REGEX] [--groups [--band minmax|std|ci95] [--iqm]]
                 [--report json|text] [--watch [--every N]]
                                   write each run's data to FOLDER/RUN/: metrics_long.csv (every
                                   point of every session as read, with its session),
                                   metrics_wide.csv (a row per session and step) and
                                   training_metrics.json (history, --json); figures as PNG/SVG
                                   (SVG text is <text>): training_progress, policy_metrics,
                                   evaluation_metrics, system, figures/TAG (100 at most: reward,
                                   policy, loss first; per-core system tags as one), for several
                                   runs FOLDER/comparison (reward) and FOLDER/comparisons/TAG
                                   (each tag they share); alerts marked as the window marks them,
                                   every transform (smoothing, log y) written on the figure
                                   (none named: CSV, JSON and PNG; figures 1600×900, scale 1);
                                   --paper: a paper's column (3.5 × 2.6 in at 300 dpi, 8–9 pt
                                   text, thin lines, the caption wrapped, never cut);
                                   --no-health-bands: no shaded healthy range or target line;
                                   --groups: runs that differ only in their seed (config.json)
                                   as FOLDER/groups/GROUP/TAG, each group's mean and band (min–max
                                   by default, ± std, 95 % bootstrap CI; --iqm: dashed IQM), the
                                   groups together in groups/comparison/TAG, the band's meaning
                                   and each group's run count on the figure; with --csv each
                                   group's groups/GROUP/steps.csv (tag, step, mean, lower, upper,
                                   n, band: the figures' numbers); --csv also writes
                                   FOLDER/runs_table.csv (inspect --table --csv of those runs);
                                   --report json prints what was written as JSON (per round with
                                   --watch); --watch exports again when the run changes, at most
                                   every N s (30) until Ctrl-C; never into PATH
  rlwatch export PATH --out FOLDER --samples [--runs REGEX]
                                   each run's samples (completions JSONL, W&B tables, TensorBoard
                                   text) as FOLDER/RUN/samples/SOURCE.jsonl and SOURCE.csv
                                   (spreadsheet-safe); with --csv/--json/--png/--svg those too
  rlwatch export PATH --incident ID --out FOLDER [--svg] [--json]
                                   an alert's snapshot in FOLDER/incident-RULE-RUN-stepN/:
                                   report.md, window.csv (every tag around the step) and
                                   charts.png (--svg: also charts.svg); the ID is the "id" of
                                   the alert lines of \`rlwatch watch PATH --json\` or its
                                   short alias (\`--incident 3f9a\`, shown beside each id), or see
                                   \`rlwatch export PATH --incident list\`
  rlwatch --help | --version

JOB (one training job across nodes):
  --job NAME [--node NAME]         this folder's runs are one node (default: the host name) of job
                                   NAME; a serve following the agents shows the job as one entry
                                   with its nodes and alerts when a node falls silent while the
                                   others move, lags in steps, or leaves its GPUs idle. Without
                                   --job, one run name on several endpoints started together is a job

METRICS (Prometheus /metrics; the page token never opens it):
  --metrics-token TOKEN            on the main port, with "Authorization: Bearer TOKEN" (16+
                                   characters; or the RLWATCH_METRICS_TOKEN environment variable)
  --metrics-host H --metrics-port P
                                   /metrics alone on its own address (open unless a token is set),
                                   e.g. for a scraper on the cluster network
  --metrics-max-runs N --metrics-max-tags N
                                   most runs (the most recently active; default 200) and tags per
                                   run (default 256) exposed; what is cut now is
                                   rlwatch_metrics_dropped_series (each new cut logged once)

Exit status: 0 ok, 1 export partly failed, 2 bad usage or unreadable path.`;

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function parseNumber(
  name: string,
  raw: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max)
    throw new UsageError(`--${name} must be a number from ${min} to ${max}, got '${raw}'`);
  return n;
}

type FlagSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

/** Strict flag parsing, so a typo is a usage error rather than silently ignored. */
export function parseFlags(
  args: string[],
  options: FlagSpec,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { values: values as Record<string, string | boolean | undefined>, positionals };
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

/** The values of a repeatable (`multiple`) string flag: parseFlags types single values only. */
export function repeatedFlag(values: Record<string, unknown>, name: string): string[] {
  const v = values[name];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Checks that `dir` is a readable folder, as a usage error with the reason otherwise. */
export async function readableFolder(dir: string): Promise<string> {
  const full = resolve(dir);
  try {
    const st = await stat(full);
    if (!st.isDirectory()) throw new UsageError(`${full} is not a folder`);
    await access(full, constants.R_OK | constants.X_OK);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT'
        ? `${full} does not exist`
        : code === 'EACCES'
          ? `${full} is not readable (permission denied)`
          : `cannot read ${full}: ${String(err)}`,
    );
  }
  return full;
}

/** Resolves on the first SIGINT/SIGTERM, so long-running commands can clean up and exit 0. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((res) => {
    const on = (sig: NodeJS.Signals): void => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      res(sig);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}
