// The run list's click rules: click focuses one run, ctrl/⌘ adds or removes one, shift adds a range.

import { describe, expect, test } from 'vitest';
import { clickRun, runClickKind, type RunSelection } from '../../src/shared/run-selection';

const ORDER = ['PPO_1', 'PPO_2', 'PPO_3', 'PPO_4', 'PPO_5'];
const sel = (
  selected: string | null,
  overlay: string[] = [],
  anchor: string | null = selected,
): RunSelection => ({
  selected,
  overlay,
  anchor,
});
/** Every run charted, focused first. */
const charted = (s: RunSelection): string[] => (s.selected === null ? [] : [s.selected, ...s.overlay]);

describe('run selection', () => {
  test('modifier keys: plain = focus, ctrl or ⌘ = toggle, shift = range', () => {
    const ev = (o: Partial<Record<'ctrlKey' | 'metaKey' | 'shiftKey', boolean>>) => ({
      ctrlKey: false,
      metaKey: false,
      shiftKey: false,
      ...o,
    });
    expect(runClickKind(ev({}))).toBe('focus');
    expect(runClickKind(ev({ ctrlKey: true }))).toBe('toggle');
    expect(runClickKind(ev({ metaKey: true }))).toBe('toggle');
    expect(runClickKind(ev({ shiftKey: true }))).toBe('range');
    expect(runClickKind(ev({ shiftKey: true, ctrlKey: true }))).toBe('range');
  });

  test('a ctrl-click adds PPO_5 to PPO_1 and PPO_3: nothing charted is dropped (PPO_1 was)', () => {
    const next = clickRun(sel('PPO_1', ['PPO_3']), 'PPO_5', 'toggle', ORDER);
    expect(charted(next)).toEqual(['PPO_1', 'PPO_3', 'PPO_5']);
  });

  test('a plain click charts that run alone, whatever was charted', () => {
    expect(clickRun(sel('PPO_1', ['PPO_3']), 'PPO_5', 'focus', ORDER)).toEqual(sel('PPO_5'));
    expect(clickRun(sel('PPO_1', ['PPO_3']), 'PPO_1', 'focus', ORDER)).toEqual(sel('PPO_1'));
    expect(clickRun(sel(null), 'PPO_2', 'toggle', ORDER)).toEqual(sel('PPO_2'));
  });

  test('ctrl-click again removes it; on the focused run, the next charted one takes the focus; the last stays', () => {
    expect(charted(clickRun(sel('PPO_1', ['PPO_3', 'PPO_5']), 'PPO_3', 'toggle', ORDER))).toEqual([
      'PPO_1',
      'PPO_5',
    ]);
    expect(charted(clickRun(sel('PPO_1', ['PPO_3', 'PPO_5']), 'PPO_1', 'toggle', ORDER))).toEqual([
      'PPO_3',
      'PPO_5',
    ]);
    expect(charted(clickRun(sel('PPO_1'), 'PPO_1', 'toggle', ORDER))).toEqual(['PPO_1']);
  });

  test('shift-click adds the range from the last plain or ctrl click, either way, removing none', () => {
    const a = clickRun(sel('PPO_2'), 'PPO_4', 'range', ORDER);
    expect(charted(a)).toEqual(['PPO_2', 'PPO_3', 'PPO_4']);
    // Upwards from a ctrl-clicked anchor; runs already charted stay where they were.
    const b = clickRun(sel('PPO_2', ['PPO_5'], 'PPO_5'), 'PPO_3', 'range', ORDER);
    expect(charted(b)).toEqual(['PPO_2', 'PPO_5', 'PPO_3', 'PPO_4']);
    // The anchor holds across shift-clicks (a second one widens the range from the same start).
    expect(charted(clickRun(a, 'PPO_5', 'range', ORDER))).toEqual(['PPO_2', 'PPO_3', 'PPO_4', 'PPO_5']);
    // An anchor filtered out of the list: just the clicked run.
    expect(charted(clickRun(sel('PPO_9'), 'PPO_3', 'range', ORDER))).toEqual(['PPO_9', 'PPO_3']);
  });
});
