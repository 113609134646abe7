// Turns nvidia-smi's value strings ("97 %", "18231 MiB", "410.55 W", "[N/A]", "Not Supported") into numbers or null.

const NUMBER_WITH_UNIT = /^([+-]?\d+(?:\.\d+)?)\s*([A-Za-z%/]*)$/;

const MIB_PER: Record<string, number> = {
  b: 1 / 1048576,
  kib: 1 / 1024,
  kb: 1 / 1024,
  mib: 1,
  mb: 1,
  gib: 1024,
  gb: 1024,
};

/** The number in "71 C" / "97 %" / "410.55 W" / "1950" — anything else ("N/A", "[Not Supported]",
 * "Unknown Error", "Requested functionality has been deprecated", "") is null, never NaN. */
export function parseNumber(raw: unknown): number | null {
  const m = matchNumber(raw);
  return m ? m.value : null;
}

/** A memory amount in MiB; nvidia-smi says MiB, but a KiB/GiB unit is converted rather than misread. */
export function parseMiB(raw: unknown): number | null {
  const m = matchNumber(raw);
  if (!m) return null;
  if (m.unit === '') return m.value;
  const factor = MIB_PER[m.unit.toLowerCase()];
  return factor === undefined ? null : m.value * factor;
}

/** An integer such as a pid or GPU index; "N/A" and fractions are null. */
export function parseInteger(raw: unknown): number | null {
  const v = parseNumber(raw);
  return v !== null && Number.isInteger(v) ? v : null;
}

/** A text value, with nvidia-smi's placeholders for "no value" turned into null. */
export function parseText(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const s = raw.trim();
  if (s === '' || isPlaceholder(s)) return null;
  return s;
}

function isPlaceholder(s: string): boolean {
  const inner = s.startsWith('[') && s.endsWith(']') ? s.slice(1, -1) : s;
  return /^(N\/A|Not Supported|Unknown Error|Not Available|Requested functionality has been deprecated|Insufficient Permissions|GPU is lost|None)$/i.test(
    inner.trim(),
  );
}

function matchNumber(raw: unknown): { value: number; unit: string } | null {
  if (typeof raw === 'number') return Number.isFinite(raw) ? { value: raw, unit: '' } : null;
  if (typeof raw !== 'string') return null;
  const m = NUMBER_WITH_UNIT.exec(raw.trim());
  if (!m || m[1] === undefined) return null;
  const value = Number(m[1]);
  return Number.isFinite(value) ? { value, unit: m[2] ?? '' } : null;
}
