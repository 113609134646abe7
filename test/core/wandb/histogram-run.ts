// Test helper: a W&B run log with histogram history values as the SDK writes them (wandb.Histogram's JSON: `bins`, or `packedBins`).

import { frameLog, rec } from './wandb-log-writer';

/**
 * 25 history rows (`_step` 0, 10, … 240) holding `actions` (values over explicit bins), `grads` (values
 * over packedBins {min, size, count}), a malformed `bad` (bins one short) and a scalar `loss`; then a
 * row whose key is nested (`policy/logits`) at `_step` 250 without a timestamp.
 */
export function wandbHistogramLog(runId = 'histo1', rows = 25): Uint8Array {
  const records: Uint8Array[] = [rec.run(runId, 1_700_000_000)];
  for (let step = 0; step < rows; step++) records.push(histogramRow(step));
  records.push(
    rec.history(
      [
        ['_step', '250'],
        ['policy/logits', JSON.stringify({ _type: 'histogram', values: [3], bins: [0, 1] })],
      ],
      true,
    ),
  );
  return frameLog(records);
}

/** One history row of the run above: `_step` = 10 · step. */
export function histogramRow(step: number): Uint8Array {
  const values = [step % 3, 4, 1 + (step % 5), 0, 2];
  const bins = [-1, -0.5, 0, 0.25, 1, 2.5].map((b) => b * (1 + step / 10));
  return rec.history([
    ['_step', String(step * 10)],
    ['_timestamp', String(1_700_000_000 + step)],
    ['loss', String(1 / (step + 1))],
    ['actions', JSON.stringify({ _type: 'histogram', values, bins })],
    [
      'grads',
      JSON.stringify({
        _type: 'histogram',
        values: values.slice(0, 4),
        packedBins: { min: -0.3, size: 0.15, count: 4 },
      }),
    ],
    ['bad', JSON.stringify({ _type: 'histogram', values: [1, 2], bins: [0, 1] })],
  ]);
}
