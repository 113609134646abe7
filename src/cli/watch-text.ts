// `rlwatch watch`'s lines for people: every event (`--verbose`), or the compact default (a line per run per update).

import type { AlertLine, WatchLine } from '../core/watch/watch-lines';
import { JOB_NODE_STATE_LABELS } from '../shared/job-types';
import { formatNumber } from '../shared/format';
import { incidentAlias } from '../shared/incident-alias';
import { keyMetricTags } from '../shared/compare/runs-table';
import { terminalSafe } from './terminal-text';

export const clock = (t: number): string => new Date(t).toISOString().slice(11, 19);
// null is how JSON carries NaN in a scalar line.
const num = (v: number | null): string => (v === null ? 'NaN' : formatNumber(v, 6));

/** An alert line's words: severity and state, the run, the rule and message, the incident's alias beside its id. */
function alertText(line: AlertLine): string {
  return `${line.severity.toUpperCase()} ${line.state}: ${terminalSafe(line.run)} ${line.rule} — ${terminalSafe(line.message)}  [${incidentAlias(line.id)} = ${terminalSafe(line.id)}]`;
}

/** One readable line per event for people (the JSON form is for programs). */
export function formatLine(line: WatchLine): string {
  switch (line.type) {
    case 'run':
      return `${clock(line.t)}  run ${terminalSafe(line.run)} ${line.state}\n`;
    case 'scalars': {
      const last = line.points[line.points.length - 1];
      return last
        ? `${clock(line.t)}  ${terminalSafe(line.run)}  ${terminalSafe(line.tag)}  step ${last[0]} = ${num(last[2])}${line.points.length > 1 ? `  (+${line.points.length} points)` : ''}\n`
        : '';
    }
    case 'progress':
      return `${clock(line.t)}  ${terminalSafe(line.run)}  progress ${line.fraction === null ? '?' : `${(line.fraction * 100).toFixed(1)}%`}${line.etaSeconds === null ? '' : `, ETA ${Math.round(line.etaSeconds)} s`}\n`;
    case 'alert':
      return `${clock(line.t)}  ${alertText(line)}\n`;
    case 'notice':
      return `${clock(line.t)}  ${line.level}: ${terminalSafe(line.message)}\n`;
    case 'error':
      return `${clock(line.t)}  read error in ${terminalSafe(line.run)}/${terminalSafe(line.file)} at byte ${line.offset} (${line.kind}): ${terminalSafe(line.message)}; the points before it are kept\n`;
    case 'reset':
      return `${clock(line.t)}  ${terminalSafe(line.run)}  ${terminalSafe(line.tag)}  points reset (${line.reason})\n`;
    case 'endpoint':
      return `${clock(line.t)}  endpoint ${terminalSafe(line.endpoint)} ${line.state}${line.error ? `: ${terminalSafe(line.error)}` : ''}\n`;
    case 'job': {
      const nodes = line.nodes
        .map(
          (n) =>
            `${terminalSafe(n.node)} ${n.state === 'moving' ? '' : `${JOB_NODE_STATE_LABELS[n.state].toUpperCase()} `}@${n.step ?? '?'}` +
            // "agent unreachable" already says its endpoint does not answer.
            (n.connected || n.state === 'unreachable' ? '' : ' (not connected)'),
        )
        .join(', ');
      const count = `${line.nodes.length} node${line.nodes.length === 1 ? '' : 's'}`;
      return `${clock(line.t)}  job ${terminalSafe(line.job)}  ${count}: ${nodes}\n`;
    }
    case 'system': {
      const gpus = line.gpus.map((g) => `GPU${g.index} ${g.utilizationPct ?? '?'}%`).join(' ');
      return `${clock(line.t)}  system cpu ${line.cpuPct === null ? '?' : line.cpuPct.toFixed(0)}% mem ${line.memPct === null ? '?' : line.memPct.toFixed(0)}%${gpus ? ' ' + gpus : ''}\n`;
    }
  }
}

/** ANSI styles of the compact lines; none when stdout is not a terminal or NO_COLOR is set (the words say it all). */
const STYLES = { red: '\u001b[1;31m', yellow: '\u001b[33m', green: '\u001b[32m', dim: '\u001b[2m' } as const;
type Style = keyof typeof STYLES;

/** Whether watch's text may be coloured: a terminal, and no NO_COLOR (https://no-color.org: set and not empty). */
export function colourWanted(isTTY: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  return isTTY === true && (env.NO_COLOR ?? '') === '';
}

/** The system line at most this often in the compact form (ms). */
export const COMPACT_SYSTEM_EVERY_MS = 10_000;

/** Run states that are news: printed at once, and the status on the run's later lines. */
const STATE_STYLE: Record<string, Style | null> = {
  discovered: null,
  removed: 'dim',
  live: 'green',
  stalled: 'yellow',
  exited: 'yellow',
  crashed: 'red',
  finished: 'green',
};

interface RunState {
  status: string | null;
  step: number | null;
  /** Per tag: the last value printed or pending (null: non-finite). */
  last: Map<string, number | null>;
  /** The key metrics among `last`'s tags, chosen when it held `metricsOf` tags (tags are only ever added): every line
   * asked the runs table to classify all the run's tags again (#36). */
  metrics: ReturnType<typeof keyMetricTags>;
  metricsOf: number;
  progress: string | null;
  /** Active incidents: id → severity. */
  active: Map<string, AlertLine['severity']>;
}

/**
 * The compact default of `rlwatch watch`: points become one line per run per update (step, the runs table's key
 * metrics — reward, KL, entropy, loss —, progress, status and active alerts), printed by `flush()`; alerts and status
 * changes at once, highlighted; the system line every 10 s; everything else as the verbose line.
 */
export class CompactWatch {
  private readonly runs = new Map<string, RunState>();
  private readonly pending = new Set<string>();
  private lastSystem = -Infinity;

  constructor(private readonly o: { colour: boolean; systemEveryMs?: number }) {}

  /** Text to print now for this line ('' when it only updates a run's pending line). */
  push(line: WatchLine): string {
    switch (line.type) {
      case 'scalars': {
        const r = this.run(line.run);
        for (const [step, , value] of line.points) {
          r.step = r.step === null ? step : Math.max(r.step, step);
          r.last.set(line.tag, value);
        }
        if (line.points.length > 0) this.pending.add(line.run);
        return '';
      }
      case 'progress': {
        const pct = line.fraction === null ? null : `${(line.fraction * 100).toFixed(1)}%`;
        const eta = line.etaSeconds === null ? '' : ` ETA ${Math.round(line.etaSeconds)} s`;
        this.run(line.run).progress = pct === null ? null : pct + eta;
        return '';
      }
      case 'run': {
        if (line.state === 'removed') this.runs.delete(line.run);
        else if (line.state !== 'discovered') this.run(line.run).status = line.state;
        const style = STATE_STYLE[line.state] ?? null;
        return `${clock(line.t)}  ${this.paint(style, `run ${terminalSafe(line.run)} ${line.state}`)}\n`;
      }
      case 'alert': {
        const active = this.run(line.run).active;
        if (line.state === 'cleared') active.delete(line.id);
        else active.set(line.id, line.severity);
        const style: Style =
          line.state === 'cleared' ? 'green' : line.severity === 'critical' ? 'red' : 'yellow';
        return `${clock(line.t)}  ${this.paint(style, alertText(line))}\n`;
      }
      case 'system':
        if (line.t - this.lastSystem < (this.o.systemEveryMs ?? COMPACT_SYSTEM_EVERY_MS)) return '';
        this.lastSystem = line.t;
        return formatLine(line);
      default:
        return formatLine(line);
    }
  }

  /** One line per run that got points since the last flush, in name order. */
  flush(t: number): string {
    const names = [...this.pending].sort();
    this.pending.clear();
    return names
      .flatMap((name) => {
        const r = this.runs.get(name);
        return r ? [`${clock(t)}  ${this.runText(name, r)}\n`] : [];
      })
      .join('');
  }

  /** Whether a flush would print anything. */
  get due(): boolean {
    return this.pending.size > 0;
  }

  private runText(name: string, r: RunState): string {
    if (r.metricsOf !== r.last.size) {
      r.metrics = keyMetricTags([...r.last.keys()]);
      r.metricsOf = r.last.size;
    }
    const metrics = r.metrics.map(({ label, tag, negate }) => {
      const v = r.last.get(tag) ?? null;
      return `${label} ${v === null ? 'NaN' : formatNumber(negate ? -v : v, 4)}`;
    });
    const parts = [terminalSafe(name), `step ${r.step ?? '?'}`, ...metrics];
    if (r.progress !== null) parts.push(r.progress);
    if (r.status !== null) parts.push(this.paint(STATE_STYLE[r.status] ?? null, r.status));
    const severities = [...r.active.values()];
    const critical = severities.filter((s) => s === 'critical').length;
    const warning = severities.length - critical;
    if (critical > 0) parts.push(this.paint('red', `${critical} critical`));
    if (warning > 0) parts.push(this.paint('yellow', `${warning} warning${warning === 1 ? '' : 's'}`));
    return parts.join('  ');
  }

  private run(name: string): RunState {
    let r = this.runs.get(name);
    if (!r) {
      r = {
        status: null,
        step: null,
        last: new Map(),
        metrics: [],
        metricsOf: 0,
        progress: null,
        active: new Map(),
      };
      this.runs.set(name, r);
    }
    return r;
  }

  private paint(style: Style | null, text: string): string {
    return this.o.colour && style !== null ? `${STYLES[style]}${text}\u001b[0m` : text;
  }
}
