// The tab's title and favicon: the worst active alert and how many are active; the plain title and app icon when none.

import { describe, expect, test } from 'vitest';
import { dotIcon, tabBadge } from '../../../src/renderer/src/lib/tab-badge';
import type { AlertInfo, Severity } from '../../../src/shared/domain';

const alert = (id: string, severity: Severity, active: boolean): AlertInfo =>
  ({ id, run: 'r', rule: 'kl-above-target', severity, active, tag: 'kl', step: 1 }) as unknown as AlertInfo;

describe('tabBadge', () => {
  test('no active alert: the plain title and the app icon', () => {
    expect(tabBadge([], 'rlwatch')).toEqual({ title: 'rlwatch', icon: null });
    expect(tabBadge([alert('a', 'critical', false)], 'rlwatch')).toEqual({ title: 'rlwatch', icon: null });
  });

  test('warnings only: an amber dot and the count of active alerts', () => {
    const b = tabBadge(
      [alert('a', 'warning', true), alert('b', 'warning', true), alert('c', 'critical', false)],
      'rlwatch',
    );
    expect(b.title).toBe('⚠ 2 · rlwatch');
    expect(b.icon).toBe(dotIcon('#d97706'));
  });

  test('one critical among them: a red dot, the critical mark', () => {
    const b = tabBadge([alert('a', 'warning', true), alert('b', 'critical', true)], 'rlwatch');
    expect(b.title).toBe('⛔ 2 · rlwatch');
    expect(b.icon).toBe(dotIcon('#dc2626'));
  });

  test('the icon is an SVG data URL (the CSP allows img-src data:) holding a circle of that colour', () => {
    const url = dotIcon('#dc2626');
    expect(url.startsWith('data:image/svg+xml,')).toBe(true);
    const svg = decodeURIComponent(url.slice('data:image/svg+xml,'.length));
    expect(svg).toMatch(
      /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*><circle [^>]*fill="#dc2626"\/><\/svg>$/,
    );
  });
});
