// CRC-32C (Castagnoli) with TFRecord's masking, slicing-by-8 so checking data CRCs stays cheap.

const POLY = 0x82f63b78;
const TABLES: Uint32Array[] = (() => {
  const t: Uint32Array[] = [];
  for (let k = 0; k < 8; k++) t.push(new Uint32Array(256));
  const t0 = t[0]!;
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let j = 0; j < 8; j++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
    t0[i] = c >>> 0;
  }
  for (let i = 0; i < 256; i++) {
    let c = t0[i]!;
    for (let k = 1; k < 8; k++) {
      c = t0[c & 0xff]! ^ (c >>> 8);
      t[k]![i] = c >>> 0;
    }
  }
  return t;
})();

// Module constants, not destructured per call: a record's 8-byte length CRC is computed ~17M times per GB
// of small events, and array destructuring in the call was most of its cost.
const [T0, T1, T2, T3, T4, T5, T6, T7] = TABLES as [
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
];

/** Plain CRC-32C of bytes[start, end). */
export function crc32c(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffffffff;
  let i = start;
  while (end - i >= 8) {
    const a =
      (crc ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24))) >>> 0;
    crc =
      T7[a & 0xff]! ^
      T6[(a >>> 8) & 0xff]! ^
      T5[(a >>> 16) & 0xff]! ^
      T4[a >>> 24]! ^
      T3[bytes[i + 4]!]! ^
      T2[bytes[i + 5]!]! ^
      T1[bytes[i + 6]!]! ^
      T0[bytes[i + 7]!]!;
    i += 8;
  }
  while (i < end) crc = T0[(crc ^ bytes[i++]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** TFRecord's masked CRC: rotate right by 15 and add a constant, so CRCs of CRCs stay useful. */
export function maskCrc(crc: number): number {
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

export function maskedCrc32c(bytes: Uint8Array, start = 0, end = bytes.length): number {
  return maskCrc(crc32c(bytes, start, end));
}
