// The one visible form of control and bidi characters: nothing unsafe survives, and text without them is untouched.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { escapeControls } from '../../src/shared/control-chars';

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('escapeControls', () => {
  test('fuzz: no control or bidi character survives; text without one comes back as it was', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        const out = escapeControls(s);
        expect(UNSAFE.test(out)).toBe(false);
        if (!UNSAFE.test(s)) expect(out).toBe(s);
        // Each unsafe character became a backslash form of 2–6 characters.
        if (UNSAFE.test(s)) expect(out.length).toBeGreaterThan(s.length);
      }),
      { seed: 23, numRuns: 5000 },
    );
  });

  test('named forms, then \\xHH and \\uHHHH', () => {
    expect(escapeControls('\u001b[1m\n\r\t\u0000\u0085\u2067x')).toBe('\\e[1m\\n\\r\\t\\x00\\x85\\u2067x');
  });
});
