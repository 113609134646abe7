// The export.figure request the app tests send: run1's approx_kl, light theme, 400×240 PNG at 1×.

import type { RequestArgs } from '../../../src/shared/contract';

export const figureArgs = (
  over: Partial<RequestArgs['export.figure']> = {},
): RequestArgs['export.figure'] => ({
  runs: ['run1'],
  tag: 'approx_kl',
  view: { xAxis: 'step', logY: false, smoothing: 0, ignoreOutliers: false },
  theme: 'light',
  format: 'png',
  width: 400,
  height: 240,
  scale: 1,
  ...over,
});
