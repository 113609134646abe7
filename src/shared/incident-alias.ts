// Short, stable aliases for incident ids (JSON arrays that need quoting in a shell): hex of a hash of the full id.

/** Hex digits an alias has at least; lengthened (up to the hash's 16) where two incidents of a list share them. */
export const ALIAS_MIN = 4;

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

/** The 16 hex digits of FNV-1a (64-bit) over the id's UTF-8 bytes: the same id gives the same hash everywhere. */
export function incidentHash(id: string): string {
  let h = FNV_OFFSET;
  for (const b of new TextEncoder().encode(id)) h = ((h ^ BigInt(b)) * FNV_PRIME) & MASK;
  return h.toString(16).padStart(16, '0');
}

/** One id's alias alone: its hash's first ALIAS_MIN hex digits. */
export function incidentAlias(id: string): string {
  return incidentHash(id).slice(0, ALIAS_MIN);
}

/** Each id's alias within a list: ALIAS_MIN digits, or as many more as it takes to tell it from every other id listed. */
export function incidentAliases(ids: readonly string[]): Map<string, string> {
  // In hash order, the digits an alias needs are one more than it shares with either neighbour.
  const sorted = [...new Set(ids)]
    .map((id) => ({ id, h: incidentHash(id) }))
    .sort((a, b) => (a.h < b.h ? -1 : 1));
  const shared = (a: string | undefined, b: string): number => {
    let n = 0;
    while (a !== undefined && n < b.length && a[n] === b[n]) n++;
    return n;
  };
  const out = new Map<string, string>();
  sorted.forEach(({ id, h }, i) => {
    const n = Math.max(shared(sorted[i - 1]?.h, h), shared(sorted[i + 1]?.h, h)) + 1;
    out.set(id, h.slice(0, Math.min(h.length, Math.max(ALIAS_MIN, n))));
  });
  return out;
}

/** Whether `text` is written as an alias (hex digits, at least ALIAS_MIN) rather than a full id. */
export function looksLikeAlias(text: string): boolean {
  return /^[0-9a-f]+$/i.test(text) && text.length >= ALIAS_MIN && text.length <= 16;
}

/** The ids among `ids` whose hash starts with `alias` (none, one, or several when it is too short to tell them apart). */
export function idsOfAlias(alias: string, ids: readonly string[]): string[] {
  const a = alias.toLowerCase();
  return [...new Set(ids)].filter((id) => incidentHash(id).startsWith(a));
}
