// The outside probe of the first chart (the budget's and the e2e tests'): whether its canvas has its data drawn.

/**
 * Page source of a function expression: true once the first chart's canvas (in page order) has its data drawn —
 * pixels in a run colour (the palette is saturated; axes, grid and text are grey). A canvas with no data, a
 * placeholder or a chart still loading has none. Read from outside the page, pixels only.
 */
export const FIRST_CHART_INKED_FN = `() => {
  const c = document.querySelector('figure.chart canvas');
  if (!c || c.width === 0 || c.height === 0) return false;
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 8) {
    const hi = Math.max(d[i], d[i + 1], d[i + 2]), lo = Math.min(d[i], d[i + 1], d[i + 2]);
    if (d[i + 3] > 0 && hi - lo > 60 && ++n >= 20) return true;
  }
  return false;
}`;
