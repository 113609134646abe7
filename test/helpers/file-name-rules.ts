// Test helper: whether a name is a valid file name on ext4, APFS/HFS+ and NTFS (the file systems' own rules); names that break them.

import fc from 'fast-check';

/**
 * Why `name` is not a valid file name on all of ext4, APFS/HFS+ and NTFS (null when it is), written from the
 * file systems' rules, not from the code under test.
 */
export function invalidBecause(name: string): string | null {
  if (name === '' || name === '.' || name === '..') return 'empty, . or ..';
  if (Buffer.byteLength(name, 'utf8') > 255) return 'over 255 UTF-8 bytes (ext4, APFS)';
  if (name.length > 255) return 'over 255 UTF-16 units (NTFS)';
  if (name.normalize('NFD').length > 255) return 'over 255 UTF-16 units decomposed (HFS+)';
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(name))
    return 'a lone surrogate';
  if (/[/\\:*?"<>|]/.test(name)) return 'a forbidden character';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'a control character';
  if (/[\u202a-\u202e\u2066-\u2069]/.test(name)) return 'a bidi override';
  if (/[. ]$/.test(name)) return 'a trailing dot or space';
  if (name.startsWith('.')) return 'a leading dot (hidden)';
  const stem = name.split('.')[0]!.replace(/ +$/, '');
  if (/^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])$/i.test(stem))
    return 'a Windows device name';
  return null;
}

/** Strings heavy in what breaks names: device names, dots, spaces, separators, controls, bidi, CJK, combining marks. */
export const hostileName = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({
    unit: fc.constantFrom(
      'CON',
      'com1',
      'LPT¹',
      'nul',
      'conout$',
      '.',
      ' ',
      '/',
      '\\',
      ':',
      '*',
      '"',
      '\u202e',
      '\u2066',
      '\u0000',
      '\u001b',
      '\u0085',
      '\u007f',
      '\ud800',
      '\udc00',
      '学',
      'ᾂ', // decomposes to four code points (HFS+ counts them)
      'e\u0301',
      '😀',
      '👨‍👩‍👧',
      'a',
      '-2',
      'png',
    ),
    maxLength: 200,
  }),
);
