// Names from run and tag names that are safe as one file or folder name on Linux, macOS and Windows, made unique within a folder.

import { UNSAFE_CHAR } from './control-chars';

/**
 * The longest name any of the three file systems takes, in its own unit: ext4 and APFS count UTF-8 bytes, NTFS
 * UTF-16 units, HFS+ UTF-16 units of the name decomposed (NFD). `nameSize` is the largest of these.
 */
export const MAX_NAME_SIZE = 255;
/** The default budget of `safeFileName`: room left for what callers add (`-2` from UniqueNames, `.png`, a prefix). */
export const DEFAULT_NAME_SIZE = 200;
/** The budget of a figure's name (a tag's): room for `-N`, `.png` and the other figures' names. */
export const FIGURE_NAME_SIZE = 150;
/** The smallest budget `safeFileName` takes (a device name and its `_` always fit). */
const MIN_NAME_SIZE = 16;

/** Controls, bidi overrides (shared/control-chars), Windows' forbidden `: * ? " < > |`, and lone surrogates. */
const UNSAFE_IN_NAME = new RegExp(
  `${UNSAFE_CHAR.source}|[:*?"<>|]|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]`,
  'g',
);

/**
 * Windows' device names (`CON`, `PRN`, `AUX`, `NUL`, `CONIN$`, `CONOUT$`, `COM0`–`COM9`, `LPT0`–`LPT9`, also with
 * a superscript digit), which stay devices with any extension and with spaces before it (`nul .txt`).
 */
const RESERVED_STEM = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³]) *(?=\.|$)/i;

/** A name's size as the strictest of the three file systems counts it (see MAX_NAME_SIZE). */
export function nameSize(name: string): number {
  return Math.max(utf8Length(name), name.normalize('NFD').length);
}

/** UTF-8 bytes of `s` (a lone surrogate as U+FFFD's 3), without Node's Buffer: this runs in the renderer too. */
function utf8Length(s: string): number {
  let n = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** `name`'s longest start of at most `max` (nameSize), cut between graphemes (code points inside a first one too long). */
function cutToSize(name: string, max: number): string {
  if (nameSize(name) <= max) return name;
  let out = '';
  for (const { segment } of graphemes.segment(name)) {
    if (nameSize(out + segment) <= max) {
      out += segment;
      continue;
    }
    if (out !== '') return out;
    for (const cp of segment) {
      if (nameSize(out + cp) > max) return out;
      out += cp;
    }
  }
  return out;
}

/**
 * `name` as one file or folder name, valid on Linux, macOS and Windows, and the same for the same name: path
 * separators become `__`; controls, bidi overrides, lone surrogates and `: * ? " < > |` become `_`; a leading dot
 * (hidden, or `.`/`..`) and trailing dots and spaces (Windows drops them) become `_`; a Windows device name before
 * any extension takes a `_` (`CON.png` → `CON_.png`); the result is at most `maxSize` (nameSize: UTF-8 bytes and
 * UTF-16 units), cut between characters; never empty. A safe name maps to itself, and stays valid with `-N` and an
 * extension of up to MAX_NAME_SIZE − `maxSize` − 3 characters appended.
 */
export function safeFileName(name: string, maxSize = DEFAULT_NAME_SIZE): string {
  const max = Math.min(MAX_NAME_SIZE, Math.max(MIN_NAME_SIZE, maxSize));
  const clean = notDevice(
    name
      .replace(UNSAFE_IN_NAME, '_')
      .replace(/[\\/]+/g, '__')
      .replace(/^\./, '_'),
  );
  const cut = noTrailingDot(cutToSize(clean, max));
  // A cut can leave a device name bare (`CON👨‍👩‍👧` → `CON`): one unit shorter, it takes its `_`.
  const safe = RESERVED_STEM.test(cut) ? notDevice(noTrailingDot(cutToSize(clean, max - 1))) : cut;
  return safe || '_';
}

/** `name` with a `_` after a Windows device name at its start (`CON.png` → `CON_.png`, `nul .txt` → `nul_ .txt`). */
function notDevice(name: string): string {
  return name.replace(RESERVED_STEM, (stem) => `${stem.trimEnd()}_${stem.slice(stem.trimEnd().length)}`);
}

/** Trailing dots and spaces (Windows drops them) as `_`, one each, so the size stays. */
function noTrailingDot(name: string): string {
  return name.replace(/[. ]+$/, (tail) => '_'.repeat(tail.length));
}

/**
 * Hands out names unique within one folder: a second `a` becomes `a-2` (two tags `a/b` and `a__b` map alike).
 * Names compare as the case-insensitive, normalisation-insensitive file systems of Windows and macOS compare
 * them (`A` and `a`, an NFC and an NFD `é` are one name there). `reserved` are names the folder already holds.
 */
export class UniqueNames {
  private readonly used = new Set<string>();

  constructor(reserved: Iterable<string> = []) {
    for (const name of reserved) this.used.add(UniqueNames.key(name));
  }

  take(name: string): string {
    let out = name;
    for (let n = 2; this.used.has(UniqueNames.key(out)); n++) out = `${name}-${n}`;
    this.used.add(UniqueNames.key(out));
    return out;
  }

  private static key(name: string): string {
    return name.normalize('NFC').toLowerCase();
  }
}
