// TensorBoard text summaries seen as samples: a TextSource adapted to the SampleSource shape (TextItem stays the storage).

import type {
  SampleCell,
  SampleRow,
  SampleSource,
  SampleSourceInfo,
  SampleTable,
} from '../../shared/samples';
import type { TextItem, TextSource } from '../../shared/text-items';

/**
 * Each text tag is a source; the items of a step are its samples. A 0-d or 1-d tensor is one `text`
 * column (a row per string); a [rows, columns] table keeps its columns (`column 1`…, no header row:
 * TensorBoard renders a 2-d text tensor as a headerless table); deeper shapes are flattened to `text`.
 */
export function textSamples(texts: TextSource): SampleSource {
  return {
    get count() {
      return texts.tags().reduce((n, t) => n + rowsOfItems(texts.items(t.tag)), 0);
    },
    get dropped() {
      return texts.dropped;
    },
    sources(): SampleSourceInfo[] {
      return texts.tags().map((t) => {
        const bySteps = new Map<number, number>();
        for (const it of texts.items(t.tag)) bySteps.set(it.step, (bySteps.get(it.step) ?? 0) + itemRows(it));
        const steps = [...bySteps].map(([step, rows]) => ({ step, rows })).sort((a, b) => a.step - b.step);
        return {
          source: t.tag,
          origin: 'text' as const,
          rows: steps.reduce((n, s) => n + s.rows, 0),
          dropped: 0,
          steps,
        };
      });
    },
    table(source: string, step: number): SampleTable | null {
      const items = texts.items(source, step);
      return items.length === 0 ? null : itemsTable(items);
    },
  };
}

function rowsOfItems(items: readonly TextItem[]): number {
  return items.reduce((n, it) => n + itemRows(it), 0);
}

/** Columns of an item: a 2-d tensor's second dimension, else one. */
function itemColumns(it: TextItem): number {
  return it.shape.length === 2 && it.shape[1]! > 0 ? it.shape[1]! : 1;
}

function itemRows(it: TextItem): number {
  return Math.ceil(it.cells.length / itemColumns(it));
}

/** The items of one step as one table (the widest item sets the columns). */
export function itemsTable(items: readonly TextItem[]): SampleTable {
  const width = Math.max(...items.map(itemColumns));
  const columns =
    width === 1
      ? [{ name: 'text', kind: 'text' as const }]
      : Array.from({ length: width }, (_, i) => ({ name: `column ${i + 1}`, kind: 'text' as const }));
  const rows: SampleRow[] = [];
  for (const it of items) {
    const w = itemColumns(it);
    for (let at = 0; at < it.cells.length; at += w) {
      const cells: SampleCell[] = it.cells.slice(at, at + w);
      rows.push({ cells, truncated: it.truncated && at + w >= it.cells.length });
    }
  }
  return { columns, rows };
}
