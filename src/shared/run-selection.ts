// Which runs the charts show after a click in the run list: click focuses one run, ctrl/⌘ adds or removes one,
// shift adds a range; never a run dropped that the click did not name.

/** The runs charted: the focused one (its header, details and samples) and those overlaid on it. */
export interface RunSelection {
  selected: string | null;
  overlay: readonly string[];
  /** Where a shift-click's range starts: the run last clicked without shift. */
  anchor: string | null;
}

/** What a click does: `focus` (plain), `toggle` (ctrl or ⌘), `range` (shift). */
export type RunClick = 'focus' | 'toggle' | 'range';

/** The rules in one line, as the run list states them. */
export const RUN_SELECTION_HINT = 'Click: one run · Ctrl/⌘-click: add/remove · Shift-click: add a range';

/** The kind of a click from its modifier keys (shift wins over ctrl/⌘). */
export function runClickKind(ev: { ctrlKey: boolean; metaKey: boolean; shiftKey: boolean }): RunClick {
  if (ev.shiftKey) return 'range';
  return ev.ctrlKey || ev.metaKey ? 'toggle' : 'focus';
}

/**
 * The selection after clicking `run`. `order` is the list as shown (filtered), for a shift-click's range.
 * - focus: that run alone is charted (the others leave the overlay: what a plain click always does).
 * - toggle: the run joins the overlay, or leaves it; the focused run leaves too when another is charted (the
 *   first overlaid one takes the focus), and stays when it is the only one (the charts never go empty).
 * - range: every run from the anchor to this one (in `order`) is added; none is removed.
 */
export function clickRun(
  sel: RunSelection,
  run: string,
  kind: RunClick,
  order: readonly string[],
): RunSelection {
  if (kind === 'focus' || sel.selected === null) return { selected: run, overlay: [], anchor: run };
  const charted = (r: string): boolean => r === sel.selected || sel.overlay.includes(r);
  if (kind === 'toggle') {
    if (run === sel.selected) {
      const [next, ...rest] = sel.overlay;
      return next === undefined ? { ...sel, anchor: run } : { selected: next, overlay: rest, anchor: run };
    }
    return {
      selected: sel.selected,
      overlay: charted(run) ? sel.overlay.filter((r) => r !== run) : [...sel.overlay, run],
      anchor: run,
    };
  }
  const from = order.indexOf(sel.anchor ?? sel.selected);
  const to = order.indexOf(run);
  const range = from < 0 || to < 0 ? [run] : order.slice(Math.min(from, to), Math.max(from, to) + 1);
  return {
    selected: sel.selected,
    overlay: [...sel.overlay, ...range.filter((r) => !charted(r))],
    anchor: sel.anchor ?? sel.selected,
  };
}
