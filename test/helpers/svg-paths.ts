// Test helper: counts an SVG's `<path` elements painted in one colour, telling solid lines from dashed ones.

/**
 * `<path` elements painted in `colour`: stroked (a solid line; a legend swatch is a filled box) and filled outlines of
 * at least 10 pieces (a dashed line: Skia writes a dash as its outline, each dash a subpath).
 */
export function svgPaths(svg: string, colour: string): { stroked: number; dashed: number } {
  const heads = svg
    .split('<path')
    .slice(1)
    .map((p) => p.slice(0, p.indexOf('>')).toLowerCase());
  const c = colour.toLowerCase();
  const pieces = (h: string): number => (/ d="([^"]*)"/.exec(h)?.[1] ?? '').split(/m/).length - 1;
  return {
    stroked: heads.filter((h) => h.includes(`stroke="${c}"`)).length,
    dashed: heads.filter((h) => h.includes(`fill="${c}"`) && pieces(h) >= 10).length,
  };
}
