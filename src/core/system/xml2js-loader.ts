// Loads the XML→object parser that node-nvidia-smi itself uses (xml2js, overridden to ^0.6.2), resolved through that package.

import { createRequire } from 'node:module';

export type XmlValue = string | XmlObject | XmlValue[];
export interface XmlObject {
  [key: string]: XmlValue | undefined;
}

interface Xml2js {
  parseString(
    text: string,
    options: Record<string, unknown>,
    callback: (err: Error | null, result: unknown) => void,
  ): void;
}

let cached: Xml2js | null = null;

/** Resolved via node-nvidia-smi rather than imported by name: xml2js is that package's dependency,
 * not ours, so we ask for the copy it would load instead of relying on npm's hoisting. */
function xml2js(): Xml2js {
  if (cached) return cached;
  const here = createRequire(import.meta.url);
  const viaPackage = createRequire(here.resolve('node-nvidia-smi'));
  cached = viaPackage('xml2js') as Xml2js;
  return cached;
}

/** node-nvidia-smi's own options (explicitArray: false, trim: true), so the object has the shape its
 * users know; xml2js parses synchronously with these options, so the callback runs before we return. */
export function parseXml(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  let result: { ok: true; value: unknown } | { ok: false; message: string } = {
    ok: false,
    message: 'xml2js returned nothing',
  };
  try {
    xml2js().parseString(text, { explicitArray: false, trim: true }, (err, value) => {
      result = err ? { ok: false, message: err.message } : { ok: true, value };
    });
  } catch (err) {
    result = { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  return result;
}
