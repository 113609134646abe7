// Incremental CSV metrics reader: SB3/baselines progress.csv, monitor.csv, training_metrics.csv.

import type { SourceFormatName } from '../../shared/formats';
import { LineRecordReader } from '../readers/appended-reader';
import type { Framed } from '../readers/line-framer';
import { lazyModule } from '../readers/lazy-module';
import type * as CsvParseSync from 'csv-parse/sync';
import type { ReaderOptions } from '../readers/reader';
import { wallSeconds } from '../readers/rows';
import { decodeUtf8, isPercentCell, parseJsonLenient, parseNumberCell } from '../readers/values';
import { pickColumns } from './columns';
import { RateTracker } from './progress';

/** csv-parse, loaded on the first CSV read (start-up of commands that read none stays short). */
const csvParse = lazyModule<typeof CsvParseSync>('csv-parse/sync');

const CSV_OPTIONS = {
  relax_column_count: true,
  relax_quotes: true,
  skip_empty_lines: true,
  bom: true,
  // Fixed delimiters: auto-detection is fooled by monitor.csv's "\r\r\n" header line.
  record_delimiter: ['\r\n', '\n', '\r'],
};

interface Header {
  names: string[];
  stepCol: number;
  wallCol: number;
  /** monitor.csv: `t` is seconds since the `t_start` of its JSON comment line. */
  elapsedCol: number;
  /** A 0–1 fraction of the run done: the run's progress (and still a chart). */
  progressCol: number;
}

export class CsvReader extends LineRecordReader {
  readonly format: SourceFormatName = 'csv';
  private header: Header | null = null;
  private firstLine = true;
  private tStart: number | undefined;
  private progressRate = new RateTracker();

  constructor(path: string, options: ReaderOptions = {}) {
    super(path, options, true);
  }

  protected override restart(): void {
    super.restart();
    this.header = null;
    this.firstLine = true;
    this.tStart = undefined;
    this.progress = null;
    this.progressRate = new RateTracker();
  }

  protected consume(framed: Framed, mtime: number): void {
    let text = decodeUtf8(framed.bytes);
    if (this.firstLine && text.length > 0) {
      this.firstLine = false;
      // monitor.csv starts with `#{"t_start": …, "env_id": …}`: not CSV, but it dates the `t` column.
      if (text.startsWith('#')) {
        const nl = text.indexOf('\n');
        const comment = nl < 0 ? text.slice(1) : text.slice(1, nl);
        const meta = parseJsonLenient(comment.trim());
        if (meta.ok && typeof meta.value === 'object' && meta.value !== null) {
          const t = (meta.value as Record<string, unknown>)['t_start'];
          if (typeof t === 'number' && Number.isFinite(t)) this.tStart = t;
        }
        text = nl < 0 ? '' : text.slice(nl + 1);
      }
    }
    if (text.length === 0) return;
    let rows: string[][];
    try {
      rows = csvParse().parse(text, CSV_OPTIONS) as string[][];
    } catch (e) {
      // Only an unclosed quote in a flushed tail gets here; the framer never cuts inside quotes.
      this.error('decode', framed.start, `CSV: ${csvProblem(e)} in the record at byte ${framed.start}`);
      return;
    }
    for (const row of rows) this.row(row, mtime);
  }

  private row(cells: string[], mtime: number): void {
    if (this.header === null || isHeaderRow(cells)) {
      this.header = makeHeader(cells, this.tStart !== undefined);
      return;
    }
    const h = this.header;
    const step = h.stepCol >= 0 ? parseNumberCell(cells[h.stepCol] ?? '') : undefined;
    const wallCell = h.wallCol >= 0 ? (cells[h.wallCol] ?? '').trim() : '';
    let wall = wallCell === '' ? undefined : wallSeconds(parseNumberCell(wallCell) ?? wallCell);
    if (wall === undefined && h.elapsedCol >= 0 && this.tStart !== undefined) {
      const t = parseNumberCell(cells[h.elapsedCol] ?? '');
      if (t !== undefined && Number.isFinite(t)) wall = this.tStart + t;
    }
    const values: Array<[string, number]> = [];
    const n = Math.min(cells.length, h.names.length);
    for (let i = 0; i < n; i++) {
      if (i === h.stepCol || (i === h.wallCol && wall !== undefined)) continue;
      const name = h.names[i]!;
      if (name === '') continue;
      const v = parseNumberCell(cells[i]!);
      if (v !== undefined) values.push([name, v]);
    }
    this.sink.emit(step, wall, values);
    this.countRecords(1);
    if (h.progressCol >= 0) this.rowProgress(h.names[h.progressCol]!, cells[h.progressCol] ?? '', mtime);
  }

  private rowProgress(name: string, cell: string, mtime: number): void {
    const n = parseNumberCell(cell);
    // "60.03%" is 0.6003 of the run (its chart shows 60.03, as written).
    const fraction = n !== undefined && isPercentCell(cell) ? n / 100 : n;
    if (fraction === undefined || !(fraction >= 0 && fraction <= 1)) return;
    this.progressRate.observe(fraction, mtime);
    const etaSeconds = fraction >= 1 ? 0 : this.progressRate.eta(1);
    this.progress = { fraction, etaSeconds, fields: { [name]: fraction } };
  }
}

/** What csv-parse found, by its error code: its messages quote the offending field. */
function csvProblem(e: unknown): string {
  const code =
    typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : '';
  if (code === 'CSV_QUOTE_NOT_CLOSED') return 'unclosed quote';
  return code.startsWith('CSV_') ? code.slice(4).toLowerCase().replaceAll('_', ' ') : 'unreadable text';
}

function makeHeader(cells: string[], monitor: boolean): Header {
  const names = cells.map((c) => c.trim());
  const columns = pickColumns(names);
  return {
    names,
    stepCol: columns.step,
    wallCol: columns.wall,
    elapsedCol: monitor ? names.indexOf('t') : -1,
    progressCol: columns.progress,
  };
}

/** A row of only non-empty, non-numeric cells is a (repeated or new) header: logs appended across runs. */
function isHeaderRow(cells: string[]): boolean {
  if (cells.length === 0) return false;
  for (const c of cells) if (c.trim() === '' || parseNumberCell(c) !== undefined) return false;
  return true;
}
