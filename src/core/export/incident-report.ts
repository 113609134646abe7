// An incident's report.md: the alert, its threshold and origin, advice for the run's world, config, system state, files.

import type { ThresholdKey } from '../../shared/catalog';
import { thresholdNote } from '../../shared/charts/band';
import { escapeControls } from '../../shared/control-chars';
import type { AlertInfo, ResolvedThreshold } from '../../shared/domain';
import { formatNumber } from '../../shared/format';
import type { SystemSnapshot } from '../../shared/system-types';
import { ruleTitle, thresholdsOfRule } from '../health';
import { toSystemWatchLine } from '../system/watch-line';
import { exactNumberText } from '../../shared/number-text';
import type { IncidentWindow } from './incident-window';

/** What the machine or the run said about the system when the alert was raised. */
export type SystemAtIncident =
  | { source: 'live'; sample: SystemSnapshot }
  | { source: 'run'; points: { tag: string; step: number; value: number; f32: boolean }[] }
  | null;

export interface IncidentReportInput {
  alert: AlertInfo;
  /** The wall time of the alert's point (ms since epoch), else when it was raised. */
  wallTimeMs: number;
  /** The run's resolved thresholds, by key (thresholdTable). */
  thresholds: Record<string, ResolvedThreshold>;
  /** The advice worded for the run's world. */
  advice: string;
  config: Record<string, unknown> | null;
  system: SystemAtIncident;
  window: IncidentWindow;
  /** Files of the snapshot, by name, with what each holds. */
  files: { name: string; what: string }[];
}

/** Most config entries listed; longer values are cut. */
export const MAX_CONFIG_ENTRIES = 40;
const MAX_TEXT = 200;

/**
 * The one form of text from files (run, tag and GPU names, config keys and values, messages, threshold notes) in
 * Markdown: bounded; every character Markdown or HTML reads as markup (`\`, emphasis, links, `<` tags, `&`
 * entities, `|` table cells, `$` maths) and a line-start list or heading marker backslash-quoted; controls and bidi
 * overrides as the terminal shows them (`\e`, `\n`, `\u202e`: `shared/control-chars`), so the report shows
 * the text as it is, on one line, and `cat report.md` runs nothing.
 */
export function mdText(s: string): string {
  const cut = s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) + '…' : s;
  // The markup's backslashes go in first: the escapes' own (`\e`) are followed by a letter, which Markdown
  // shows as it is.
  return escapeControls(
    cut
      .replace(/[\\`*_{}[\]<>()#+!|~&$]/g, (c) => `\\${c}`)
      // A list item (`- x`, `1. x`), a rule (`---`) or a heading underline (`===`); `-0.5` and `0.1` stay.
      .replace(/^( *)([-=])(?![0-9])/, '$1\\$2')
      .replace(/^( *\d+)\.(?= |$)/, '$1\\.'),
  );
}

/** Config leaves that explain the run (learning rate, KL, clipping, batch…) first, then the rest, bounded. */
const TELLING_KEY =
  /kl|entropy|clip|lr|learning_rate|beta|gamma|lambda|batch|epoch|temperature|grad|steps|seed|model|algo/i;

/** Config leaves as `path = value`, depth-first, at most MAX_CONFIG_ENTRIES (the telling ones first). */
export function configEntries(config: Record<string, unknown> | null): {
  entries: [string, string][];
  more: number;
} {
  const all: [string, string][] = [];
  const walk = (node: unknown, path: string, depth: number): void => {
    if (all.length > 10 * MAX_CONFIG_ENTRIES) return;
    if (node === null || typeof node !== 'object') {
      all.push([path, typeof node === 'string' ? node : String(node)]);
      return;
    }
    if (Array.isArray(node)) {
      all.push([path, `[${node.length} items]`]);
      return;
    }
    if (depth >= 6) {
      all.push([path, '{…}']);
      return;
    }
    for (const [k, v] of Object.entries(node as Record<string, unknown>))
      walk(v, path ? `${path}.${k}` : k, depth + 1);
  };
  if (config) walk(config, '', 0);
  const telling = all.filter(([k]) => TELLING_KEY.test(k));
  const rest = all.filter(([k]) => !TELLING_KEY.test(k));
  const entries = [...telling, ...rest].slice(0, MAX_CONFIG_ENTRIES);
  return { entries, more: all.length - entries.length };
}

/** `text` as a Markdown code span, verbatim but for controls (`\e`…, which a code span shows as they are): fenced
 * with one backtick more than its longest run (an id to copy). */
export function codeSpan(raw: string): string {
  const text = escapeControls(raw);
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 ? ' ' : '';
  return `${fence}${pad}${text.replace(/\|/g, '\\|')}${pad}${fence}`;
}

const when = (ms: number): string => (Number.isFinite(ms) ? new Date(ms).toISOString() : 'unknown');
const pct = (v: number | null): string => (v === null ? '—' : `${formatNumber(v)} %`);

function systemSection(system: SystemAtIncident): string[] {
  if (system === null)
    return ['Not recorded: no system sample near this time, and the run logs no system metrics.'];
  if (system.source === 'run') {
    return [
      'From the system metrics the run logged itself (the point nearest the alert step):',
      '',
      '| tag | step | value |',
      '| --- | --- | --- |',
      ...system.points.map((p) => `| ${mdText(p.tag)} | ${p.step} | ${exactNumberText(p.value, p.f32)} |`),
    ];
  }
  const s = toSystemWatchLine(system.sample, system.sample.t);
  const lines = [`Sampled by rlwatch at ${when(s.t)}: CPU ${pct(s.cpuPct)}, memory ${pct(s.memPct)}.`];
  if (s.gpus.length > 0) {
    lines.push('', '| GPU | name | utilisation | memory used / total (MiB) | temperature | power |');
    lines.push('| --- | --- | --- | --- | --- | --- |');
    for (const g of s.gpus) {
      lines.push(
        `| ${g.index} | ${mdText(g.name ?? '—')} | ${pct(g.utilizationPct)} | ${g.memoryUsedMiB ?? '—'} / ${g.memoryTotalMiB ?? '—'} | ${g.temperatureC === null ? '—' : `${g.temperatureC} °C`} | ${g.powerDrawW === null ? '—' : `${g.powerDrawW} W`} |`,
      );
    }
  }
  return lines;
}

/** The report's Markdown. Numbers the alert carries are exact (they parse back to the value); thresholds as the app words them. */
export function incidentReport(o: IncidentReportInput): string {
  const a = o.alert;
  const title = ruleTitle(a.rule);
  // Only the catalog's thresholds have an origin to cite (the rest tune a rule's timing). A note quotes the run
  // config's key path (`run config: ppo.target_kl`): text from a file, quoted as Markdown.
  const keys = thresholdsOfRule(a.rule) as readonly ThresholdKey[];
  const thresholds = keys
    .map((key) => {
      const resolved = o.thresholds[key];
      if (!resolved) return null;
      const quoted =
        resolved.configPath === undefined
          ? resolved
          : { ...resolved, configPath: mdText(resolved.configPath) };
      return thresholdNote({ key, value: resolved.value }, quoted);
    })
    .filter((t): t is string => t !== null);
  const { entries, more } = configEntries(o.config);
  const state = a.active
    ? 'active'
    : // The clearing point's own wall time: the clock time of a replay would be when the export ran.
      `cleared${a.clearedStep === null ? '' : ` at step ${a.clearedStep}`}${a.clearedWallTime === null ? '' : ` (written ${when(a.clearedWallTime * 1000)})`}`;
  const runSteps = o.window.runSteps;
  return [
    `# ${mdText(title)}: ${mdText(a.run)}, step ${a.step}`,
    '',
    `| | |`,
    `| --- | --- |`,
    `| Alert id | ${codeSpan(a.id)} |`,
    `| Rule | ${mdText(a.rule)} (${mdText(title)}) |`,
    `| Severity | ${mdText(a.severity)} |`,
    `| State | ${state} |`,
    `| Run | ${mdText(a.run)} |`,
    `| Tag | ${a.tag === null ? '—' : mdText(a.tag)} |`,
    `| Step | ${a.step} |`,
    `| Wall time | ${when(o.wallTimeMs)} |`,
    // A value that is a float32 (TensorBoard) is written as its shortest float32 text, not 16 digits of its float64.
    `| Value | ${exactNumberText(a.value, Object.is(Math.fround(a.value), a.value))} |`,
    ...(a.statistic === null
      ? []
      : [
          `| Judged on | ${a.statistic.kind} ${exactNumberText(a.statistic.value, false)} over steps ${a.statistic.fromStep} to ${a.statistic.toStep} |`,
        ]),
    ...(a.tags.length > 1 ? [`| Tags | ${a.tags.map(mdText).join(', ')} |`] : []),
    `| Threshold | ${thresholds.length > 0 ? thresholds.join('; ') : 'none: judged against the run’s own recent history'} |`,
    '',
    '## What happened',
    '',
    mdText(a.message),
    '',
    ...(a.changed && a.changed.length > 0
      ? [
          '## What changed with it',
          '',
          'Other tags that moved sharply, against their own recent history, when it began (strongest first):',
          '',
          '| tag | step | before (median) | value | change |',
          '| --- | --- | --- | --- | --- |',
          ...a.changed.map(
            (m) =>
              `| ${mdText(m.tag)} | ${m.step} | ${exactNumberText(m.baseline, false)} | ${exactNumberText(m.value, false)} | ${m.ratio === null ? '—' : `×${formatNumber(m.ratio)}`} |`,
          ),
          '',
        ]
      : []),
    '## What to do',
    '',
    o.advice === '' ? 'No advice for this rule.' : o.advice,
    '',
    '## Run config',
    '',
    ...(entries.length === 0
      ? ['No config found for this run.']
      : [
          '| key | value |',
          '| --- | --- |',
          ...entries.map(([k, v]) => `| ${mdText(k)} | ${mdText(v)} |`),
          ...(more > 0 ? ['', `…and ${more} more entries.`] : []),
        ]),
    '',
    '## System at that time',
    '',
    ...systemSection(o.system),
    '',
    '## Files',
    '',
    `The window: steps ${o.window.min} to ${o.window.max} (${o.window.halfWidth} steps each side of the alert` +
      (runSteps ? `; the run spans steps ${runSteps.min} to ${runSteps.max}` : '') +
      ').',
    '',
    ...o.files.map((f) => `- [${f.name}](${f.name}): ${f.what}`),
    '',
  ].join('\n');
}
