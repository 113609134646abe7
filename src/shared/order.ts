// Text order by UTF-16 code units: the same on every machine and locale (localeCompare is not), for names and tags.

/** A sort comparator: `a` before `b` by code units. */
export const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
