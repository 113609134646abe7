// A runs-table cell's value and a column's description: what the table's builder, its group rows and its views share.

export type Cell = string | number | boolean | null;

export interface TableColumn {
  id: string;
  label: string;
  kind: 'run' | 'metric' | 'config';
  /** What the header's tooltip adds: which logged tags a key metric's values come from, and how (SB3's
   * `train/entropy_loss` is −entropy: the entropy column holds it negated). */
  note?: string;
}
